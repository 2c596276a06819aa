import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm run lint` and `npm run scan` pass on the repository (the test command runs both); this proves each of them
 * fails when a rule n8n enforces is broken, on a copy of what ships with one violation planted in it.
 */

const root = join(__dirname, '..', '..');
const lintScript = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { lint: string } })
	.scripts.lint;
const TRIGGER = join('nodes', 'ProductRegistrationTrigger', 'ProductRegistrationTrigger.node.ts');
/** eslint-plugin-n8n-nodes-base skips its file-name checks when NODE_ENV is "test", as jest sets it: run as npm does. */
const env = { ...process.env, NODE_ENV: 'production' };

let copy: string;

beforeEach(() => {
	copy = mkdtempSync(join(tmpdir(), 'product-registration-planted-'));
	for (const entry of ['nodes', 'credentials', 'package.json'])
		cpSync(join(root, entry), join(copy, entry), { recursive: true });
	symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
});
afterEach(() => rmSync(copy, { recursive: true, force: true }));

/** A description that shows `<` and `>` unencoded (the editor renders descriptions as HTML). */
function plantAngleBrackets(): void {
	const file = join(copy, TRIGGER);
	const source = readFileSync(file, 'utf8');
	expect(source).toContain('?secret=&lt;the secret&gt;');
	writeFileSync(file, source.replace('?secret=&lt;the secret&gt;', '?secret=<the secret>'));
}

/** The project's own lint command, run on the copy with the project's configuration. */
function lint(): { status: number | null; output: string } {
	const [, ...args] = lintScript.split(' ');
	const result = spawnSync(
		process.execPath,
		[join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '-c', join(root, 'eslint.config.mjs'), ...args],
		{
			cwd: copy,
			encoding: 'utf8',
			env,
		},
	);
	return { status: result.status, output: result.stdout + result.stderr };
}

function scan(leg: '--source' | '--package', directory: string): { status: number | null; output: string } {
	const result = spawnSync(process.execPath, [join(root, 'scripts', 'scan.mjs'), leg, directory], {
		cwd: root,
		encoding: 'utf8',
		env,
	});
	return { status: result.status, output: result.stdout + result.stderr };
}

describe("n8n's rules, proven to bite", () => {
	test('the copy passes both as it is', () => {
		expect(lint()).toEqual({ status: 0, output: '' });
		expect(scan('--source', copy).status).toBe(0);
	}, 60_000);

	test('lint fails on an unencoded angle bracket in a description', () => {
		plantAngleBrackets();
		const { status, output } = lint();
		expect(status).toBe(1);
		expect(output).toContain('n8n-nodes-base/node-param-description-unencoded-angle-brackets');
	}, 60_000);

	test('lint refuses a disable comment', () => {
		appendFileSync(join(copy, TRIGGER), '\n// eslint-disable-next-line no-console\nconsole.log("debug");\n');
		const { status, output } = lint();
		expect(status).toBe(1);
		expect(output).toContain('no-console');
	}, 60_000);

	test("the scanner's source leg fails on the same planted violation", () => {
		plantAngleBrackets();
		const { status, output } = scan('--source', copy);
		expect(status).toBe(1);
		expect(output).toContain('node-param-description-unencoded-angle-brackets');
	}, 60_000);

	test("the scanner's tarball leg fails on a banned global in compiled code", () => {
		cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true });
		appendFileSync(
			join(copy, 'dist', 'nodes', 'ProductRegistration', 'ProductRegistration.node.js'),
			'\nsetTimeout(() => undefined, 1);\n',
		);
		const { status, output } = scan('--package', copy);
		expect(status).toBe(1);
		expect(output).toContain('@n8n/community-nodes/no-restricted-globals');
	}, 60_000);
});
