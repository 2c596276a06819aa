import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The transport's files import one another one way only: no file of nodes/shared/transport (its folders included)
 * imports another that imports it back, directly or in a loop. A reader follows a request from the top down.
 */
const root = join(__dirname, '..', '..');
const transport = join(root, 'nodes', 'shared', 'transport');

function filesUnder(folder: string): string[] {
	return readdirSync(folder).flatMap((name) => {
		const path = join(folder, name);
		if (statSync(path).isDirectory()) return filesUnder(path);
		return name.endsWith('.ts') ? [path] : [];
	});
}

/** The files of the transport a file imports (types included), by their paths. */
function importsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	return [...text.matchAll(/from '(\.{1,2}\/[^']+)'/g)]
		.map((match) => `${resolve(dirname(file), match[1])}.ts`)
		.filter((path) => path.startsWith(transport));
}

test('no file of nodes/shared/transport imports one that imports it back, directly or in a loop', () => {
	const files = filesUnder(transport);
	const loops: string[] = [];
	const visit = (file: string, path: string[]) => {
		for (const imported of importsOf(file)) {
			if (imported === path[0]) loops.push([...path, imported].map((each) => relative(transport, each)).join(' -> '));
			else if (!path.includes(imported)) visit(imported, [...path, imported]);
		}
	};
	for (const file of files) visit(file, [file]);

	expect(loops).toEqual([]);
});
