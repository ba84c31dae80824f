"""Text to and from the HD44780 A00 character ROM (the Japanese ROM found on most 20x4 modules).

A00 has ä ö ü, ß (as β) and ° but no capital umlauts; Ä Ö Ü are shown as ä ö ü. Backslash and
tilde are not in the ROM (0x5C is ¥, 0x7E is →). Anything else unknown becomes "?".
"""

UNKNOWN = 0x3F  # "?"

_SPECIAL = {
    "ä": 0xE1,
    "Ä": 0xE1,
    "ö": 0xEF,
    "Ö": 0xEF,
    "ü": 0xF5,
    "Ü": 0xF5,
    "ß": 0xE2,
    "°": 0xDF,
    "µ": 0xE4,
    "¥": 0x5C,
    "→": 0x7E,
    "←": 0x7F,
    "█": 0xFF,
    "÷": 0xFD,
    "π": 0xF7,
    "Σ": 0xF6,
    "Ω": 0xF4,
    "ñ": 0xEE,
    "~": 0x2D,
}

_FOLD = {
    "á": "a", "à": "a", "â": "a", "é": "e", "è": "e", "ê": "e", "ë": "e", "í": "i", "ì": "i",
    "î": "i", "ó": "o", "ò": "o", "ô": "o", "ú": "u", "ù": "u", "û": "u", "ç": "c", "É": "E",
    "È": "E", "À": "A", "„": '"', "“": '"', "”": '"', "‚": "'", "‘": "'", "’": "'", "–": "-",
    "—": "-", "…": ".", "×": "x",
}

_REVERSE = {}
for _char, _code in _SPECIAL.items():
    if _code not in _REVERSE and _char not in "ÄÖÜ~":
        _REVERSE[_code] = _char


def code_for(char):
    """The ROM code that shows `char` (one character)."""
    if char in _SPECIAL:
        return _SPECIAL[char]
    char = _FOLD.get(char, char)
    code = ord(char)
    if 0x20 <= code <= 0x7D and code != 0x5C:
        return code
    return UNKNOWN


def encode_text(text, width):
    """`text` as exactly `width` ROM codes: cut when longer, padded with spaces when shorter."""
    codes = bytearray(code_for(c) for c in text[:width])
    while len(codes) < width:
        codes.append(0x20)
    return bytes(codes)


def char_for(code):
    """The character a ROM code shows (for screen dumps); U+FFFD for codes we never send."""
    if code in _REVERSE:
        return _REVERSE[code]
    if 0x20 <= code <= 0x7D and code != 0x5C:
        return chr(code)
    return "\ufffd"


def decode_codes(codes):
    """Text of a row of ROM codes."""
    return "".join(char_for(c) for c in codes)
