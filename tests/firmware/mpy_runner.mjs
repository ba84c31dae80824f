// Runs a MicroPython script in the real MicroPython WebAssembly build, with the firmware package
// mounted at /firmware and the golden frames at /golden. Usage: node mpy_runner.mjs SCRIPT REPO
// Exit status 1 and the traceback on stderr when the script raises.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [script, repoArg] = process.argv.slice(2);
const repo = path.resolve(repoArg);
const pkg = path.join(repo, "node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs");
const { loadMicroPython } = await import(pathToFileURL(pkg).href);
const mp = await loadMicroPython({
  heapsize: 8 * 1024 * 1024,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
  linebuffer: true,
});
for (const [src, dst] of [["firmware", "/firmware"], ["tests/firmware/golden", "/golden"]]) {
  mp.FS.mkdir(dst);
  for (const name of fs.readdirSync(path.join(repo, src))) {
    const file = path.join(repo, src, name);
    if (fs.statSync(file).isFile()) {
      mp.FS.writeFile(dst + "/" + name, fs.readFileSync(file));
    }
  }
}
try {
  mp.runPython("import sys\nsys.path.append('/')\n" + fs.readFileSync(script, "utf8"));
} catch (error) {
  process.stderr.write(String(error.message || error) + "\n");
  process.exit(1);
}
