// `npm run scan`: n8n's community-package scanner (@n8n/scan-community-package), run offline. The scanner itself
// downloads a published package and the source its npm provenance points at; here its analysis runs on the same two
// legs locally: the repository's sources (package.json, nodes/, credentials/) and the packed tarball (its compiled
// .js and package.json). Any finding fails. `--source <dir>` or `--package <dir>` scans one leg of another directory.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];

/** Builds and packs the repository (the tarball npm would publish) and unpacks it; returns the package folder. */
function packedPackage() {
	execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
	const folder = mkdtempSync(join(tmpdir(), 'product-registration-scan-'));
	const tarball = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', folder], { cwd: root, encoding: 'utf8' })
		.trim()
		.split('\n')
		.pop();
	execFileSync('tar', ['-xzf', join(folder, tarball), '-C', folder]);
	return join(folder, 'package');
}

async function main() {
	const [flag, directory] = process.argv.slice(2);
	const legs =
		flag === '--source'
			? [['source', directory, SOURCE_FILE_PATTERNS]]
			: flag === '--package'
				? [['tarball', directory, TARBALL_FILE_PATTERNS]]
				: [
						['source', root, SOURCE_FILE_PATTERNS],
						['tarball', packedPackage(), TARBALL_FILE_PATTERNS],
					];
	let passed = true;
	for (const [leg, folder, patterns] of legs) {
		const result = await analyzePackage(folder, patterns);
		passed &&= result.passed;
		console.log(`${result.passed ? 'passed' : 'FAILED'}: ${leg} (${folder})${result.message ? `: ${result.message}` : ''}`);
		if (result.details) console.log(result.details);
		if (leg === 'tarball' && flag === undefined) rmSync(dirname(folder), { recursive: true, force: true });
	}
	console.log(passed ? "n8n's community-package scanner: no findings" : "n8n's community-package scanner: findings above");
	process.exitCode = passed ? 0 : 1;
}

await main();
