import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

/**
 * Writes a measurement into a section of a file in docs/measured/, so that the figures there are always the ones a
 * command printed, never retyped, and the hand-written docs only link to them. A section sits between
 * `<!-- <name>: start -->` and `<!-- <name>: end -->`; what is between is replaced by a line naming the command, the
 * date and the machine, then the Markdown given.
 */
export function writeDocsSection(file: string, name: string, command: string, markdown: string): void {
	const path = join(__dirname, '..', 'docs', 'measured', file);
	const text = readFileSync(path, 'utf8');
	const start = `<!-- ${name}: start -->`;
	const end = `<!-- ${name}: end -->`;
	const from = text.indexOf(start);
	const to = text.indexOf(end);
	if (from === -1 || to < from) throw new Error(`docs/measured/${file} has no section "${name}" (${start} … ${end})`);
	const date = new Date().toISOString().slice(0, 10);
	const machine = `Node.js ${process.version}, ${cpus().length} cores`;
	const written = `_Written by \`${command}\` on ${date} (${machine})._\n\n${markdown.trim()}\n`;
	writeFileSync(path, `${text.slice(0, from + start.length)}\n${written}${text.slice(to)}`);
	console.log(`docs/measured/${file}: section "${name}" written`);
}

/**
 * Whether the command was asked to write its figures into docs/measured/ (`-- --write-docs`, or WRITE_DOCS=1 for
 * tests).
 */
export function writesDocs(): boolean {
	return process.argv.includes('--write-docs') || process.env.WRITE_DOCS === '1';
}
