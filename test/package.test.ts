import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(__dirname, '..');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	n8n: { credentials: string[]; nodes: string[] };
};

function npm(args: string[]): string {
	return execFileSync('npm', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}

describe('the published package', () => {
	let packedFiles: string[];

	beforeAll(() => {
		npm(['run', 'build']);
		const [packed] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'])) as Array<{
			files: Array<{ path: string }>;
		}>;
		packedFiles = packed.files.map((file) => file.path).sort();
	}, 120_000);

	test('holds only dist/, package.json, README.md and LICENSE', () => {
		expect(packedFiles.filter((path) => !path.startsWith('dist/'))).toEqual(['LICENSE', 'README.md', 'package.json']);
		expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
	});

	test('ships every node and credential n8n is told about, with the icons they name', () => {
		for (const entry of [...packageJson.n8n.nodes, ...packageJson.n8n.credentials]) {
			expect(packedFiles).toContain(entry);
			const exported = require(join(root, entry)) as Record<string, new () => { icon?: unknown; description?: { icon?: unknown } }>;
			const instance = new (Object.values(exported)[0])();
			const icon = (instance.description?.icon ?? instance.icon) as { light: string; dark: string };
			for (const file of [icon.light, icon.dark]) {
				const iconPath = join(dirname(entry), file.replace(/^file:/, ''));
				expect(packedFiles).toContain(iconPath);
				expect(existsSync(join(root, iconPath))).toBe(true);
			}
		}
	});

	test('ships the codex file beside each node', () => {
		for (const entry of packageJson.n8n.nodes) expect(packedFiles).toContain(entry.replace(/\.js$/, '.json'));
	});

	test('shipped JavaScript requires nothing but n8n-workflow and its own files', () => {
		const requires = packedFiles
			.filter((path) => path.endsWith('.js'))
			.flatMap((path) => [...readFileSync(join(root, path), 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]));
		expect(requires.filter((name) => name !== 'n8n-workflow' && !name.startsWith('.'))).toEqual([]);
	});
});

describe('the README', () => {
	const readme = readFileSync(join(root, 'README.md'), 'utf8');

	test('shows the exact test command CI runs, and the demo command', () => {
		const ciCommand = readFileSync(join(root, '.ci', 'run'), 'utf8').trim().split('\n').pop();
		expect(readme).toContain(`\`\`\`sh\n${ciCommand}\n\`\`\``);
		expect(readme).toContain('```sh\nnpm ci && npm run build && npm run demo\n```');
	});
});
