import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

declare const expectedEngine: { core: string; workflow: string };

/** The version of the package an import of `name` really loads in this jest project (after its module mapping). */
function loadedVersion(name: string): string {
	let directory = dirname(require.resolve(name));
	while (!directory.endsWith('node_modules') && directory !== dirname(directory)) {
		try {
			return (JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { version: string }).version;
		} catch {
			directory = dirname(directory);
		}
	}
	throw new Error(`No package.json above ${name}`);
}

test('the engine tests of this project run on the n8n line they claim', () => {
	expect({ core: loadedVersion('n8n-core'), workflow: loadedVersion('n8n-workflow') }).toEqual(expectedEngine);
});
