import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	version: string;
	n8n: { credentials: string[]; nodes: string[] };
};

function npm(args: string[]): string {
	return execFileSync('npm', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}

describe('the published package', () => {
	let packedFiles: string[];

	beforeAll(() => {
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
			const exported = require(join(root, entry)) as Record<
				string,
				new () => { icon?: unknown; description?: { icon?: unknown } }
			>;
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

	test('the built nodes and credentials load with the n8n-workflow of n8n 1.81 (1.79.1), the oldest line supported', () => {
		// Loads dist/ in a fresh process whose `require('n8n-workflow')` gets 1.79.1 (installed as n8n-workflow-v1-79),
		// then checks each node's description with that line's own parameter handling.
		const script = `
			const Module = require('node:module');
			const resolve = Module._resolveFilename;
			Module._resolveFilename = function (request, ...rest) {
				return resolve.call(this, request === 'n8n-workflow' ? 'n8n-workflow-v1-79' : request, ...rest);
			};
			const { NodeHelpers } = require('n8n-workflow');
			const entries = ${JSON.stringify([...packageJson.n8n.nodes, ...packageJson.n8n.credentials])};
			const loaded = entries.map((entry) => {
				const Type = Object.values(require('./' + entry))[0];
				const instance = new Type();
				const description = instance.description ?? instance;
				NodeHelpers.getNodeParameters(description.properties, {}, true, false, null, null);
				return { name: description.name, inputs: description.inputs, outputs: description.outputs };
			});
			console.log(JSON.stringify({ version: require('n8n-workflow-v1-79/package.json').version, loaded }));
		`;
		const output = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' })) as {
			version: string;
			loaded: Array<{ name: string; inputs?: string[]; outputs?: string[] }>;
		};

		expect(output).toEqual({
			version: '1.79.1',
			loaded: [
				{ name: 'productRegistration', inputs: ['main'], outputs: ['main'] },
				{ name: 'productRegistrationTrigger', inputs: [], outputs: ['main'] },
				{ name: 'productRegistrationPollTrigger', inputs: [], outputs: ['main'] },
				{ name: 'productRegistrationApi' },
				{ name: 'productRegistrationWebhookApi' },
			],
		});
	});

	test("n8n 1.81's n8n-workflow, which knows no tool mode (@tool), shows the node none of the tool's fields", () => {
		const script = `
			const Module = require('node:module');
			const resolve = Module._resolveFilename;
			Module._resolveFilename = function (request, ...rest) {
				return resolve.call(this, request === 'n8n-workflow' ? 'n8n-workflow-v1-79' : request, ...rest);
			};
			const { NodeHelpers } = require('n8n-workflow');
			const { ProductRegistration } = require('./dist/nodes/ProductRegistration/ProductRegistration.node.js');
			const { description } = new ProductRegistration();
			const stored = ['create', 'getAll', 'updateStatus'].map((operation) =>
				NodeHelpers.getNodeParameters(description.properties, { resource: 'registration', operation }, true, false, { typeVersion: 1 }, description),
			);
			console.log(JSON.stringify(stored));
		`;
		const stored = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' })) as Array<
			Record<string, unknown>
		>;

		for (const parameters of stored) {
			expect(parameters).not.toHaveProperty('toolDescription');
			expect(parameters).not.toHaveProperty('toolAnswer');
			expect(JSON.stringify(parameters)).not.toContain('$fromAI');
		}
		expect(stored[1]).toMatchObject({ returnAll: false, limit: 50 });
	});

	test('shipped JavaScript requires nothing but n8n-workflow and its own files', () => {
		const requires = packedFiles
			.filter((path) => path.endsWith('.js'))
			.flatMap((path) =>
				[...readFileSync(join(root, path), 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]),
			);
		expect(requires.filter((name) => name !== 'n8n-workflow' && !name.startsWith('.'))).toEqual([]);
	});
});

test("n8n's node CLI builds what npm run build builds: tsconfig.json compiles only what ships, and no PNG or SVG lies elsewhere", () => {
	// `n8n-node build` runs tsc with tsconfig.json, then copies every PNG and SVG of the repository into dist/.
	const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as { include: string[] };
	expect(tsconfig.include.map((pattern) => pattern.split('/')[0]).sort()).toEqual(['credentials', 'nodes', 'nodes']);
	const images = execFileSync('git', ['ls-files', '*.png', '*.svg'], { cwd: root, encoding: 'utf8' }).split('\n');
	expect(images.filter((file) => file !== '' && !/^(nodes|credentials)\//.test(file))).toEqual([]);
});

test('the version in package.json has its CHANGELOG entry', () => {
	const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
	expect(changelog).toMatch(new RegExp(`^## ${packageJson.version.replace(/\./g, '\\.')} `, 'm'));
});

describe('the README', () => {
	const readme = readFileSync(join(root, 'README.md'), 'utf8');

	test('shows the exact test command CI runs, and the demo command', () => {
		const ciCommand = readFileSync(join(root, '.ci', 'run'), 'utf8')
			.trim()
			.split('\n')
			.pop();
		expect(readme).toContain(`\`\`\`sh\n${ciCommand}\n\`\`\``);
		expect(readme).toContain('```sh\nnpm ci && npm run build && npm run demo\n```');
	});

	test("stays a user's document: at most 15,000 bytes, the measurements in docs/", () => {
		expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(15_000);
	});

	test('has every section the codex files and the credentials link to', () => {
		const anchors = new Set(
			[...readme.matchAll(/^#+ (.+)$/gm)].map(([, heading]) =>
				heading
					.toLowerCase()
					.replace(/[^a-z0-9 -]/g, '')
					.replace(/ /g, '-'),
			),
		);
		const codexLinks = ['ProductRegistration', 'ProductRegistrationTrigger', 'ProductRegistrationPollTrigger'].flatMap(
			(node) =>
				JSON.stringify(JSON.parse(readFileSync(join(root, 'nodes', node, `${node}.node.json`), 'utf8'))).match(
					/#[a-z0-9-]+/g,
				),
		);
		const credentialLinks = packageJson.n8n.credentials.map(
			(entry) =>
				/documentationUrl = '[^#']*(#[a-z0-9-]+)'/.exec(
					readFileSync(join(root, entry.replace(/^dist\//, '').replace(/\.js$/, '.ts')), 'utf8'),
				)?.[1],
		);
		const links = [...codexLinks, ...credentialLinks];
		expect(links.length).toBeGreaterThanOrEqual(7);
		for (const link of links) expect(anchors).toContain(link?.slice(1));
	});
});

/** Every file of the working tree, as paths from the root, leaving out what is installed, built or kept by git. */
function workingTree(folder = root): string[] {
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		if (entry.isDirectory())
			return ['node_modules', 'dist', '.git', 'coverage', '.tmp'].includes(entry.name) ? [] : workingTree(path);
		return [relative(root, path)];
	});
}

describe("the repository's layout: n8n's lint and scanner see all that ships", () => {
	const files = workingTree();

	test('every .ts file is under nodes/ or credentials/: the tooling is .cts, which n8n-node lint does not take', () => {
		// n8n's stock lint configuration holds every **/*.ts file to the rules for code that runs inside n8n; the code that
		// only builds, tests and measures the package is .cts and linted by `npm run lint:tooling` (docs/development.md).
		const typeScript = files.filter((path) => /\.(ts|tsx|mts)$/.test(path) && !/\.d\.ts$/.test(path));
		expect(typeScript.length).toBeGreaterThan(50);
		expect(typeScript.filter((path) => !/^(nodes|credentials)\//.test(path))).toEqual([]);
	});

	test('nodes/ and credentials/ hold only .ts sources, codex .json files and icons: nothing there escapes n8n-node lint, the scanner or the build', () => {
		// tsconfig.json compiles nodes/**/*.ts and credentials/**/*.ts; the scanner's source leg lints their .ts, .js and
		// .json files; n8n-node lint takes their .ts files. A .cts, .mts or .js file there would ship unchecked or not at all.
		const shipped = files.filter((path) => /^(nodes|credentials)\//.test(path));
		expect(shipped.filter((path) => !/\.(ts|json|svg|png)$/.test(path) || /\.d\.ts$/.test(path))).toEqual([]);
	});
});
