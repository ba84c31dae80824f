"""The table's brain. The core — the shared words (`words/`), the rules engines (`rules/`), the
referee (`referee/`), the journal and the table log — knows nothing of cameras, pins or ports;
the shell — the table program (`table/`), the simulator (`sim/`) and the command line — wires
it to vision/ and hardware/ (docs/architecture.md)."""
