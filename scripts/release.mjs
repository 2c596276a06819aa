// `npm run release`: publishes the package, from GitHub Actions only (.github/workflows/release.yml runs it on a
// v<version> tag). n8n verifies a community package only with npm's provenance statement, which only a CI run can
// sign, so a release from a laptop is refused here, as `npm publish` is by prepublishOnly.
import { execFileSync } from 'node:child_process';

if (process.env.GITHUB_ACTIONS !== 'true') {
	console.error(
		'Releases are published by .github/workflows/release.yml: set the version in package.json and its CHANGELOG entry, commit, then push the tag v<version>. See docs/development.md#releasing.',
	);
	process.exit(1);
}
// n8n's node CLI, in CI: lint, build, then `npm publish` with provenance.
execFileSync('npx', ['n8n-node', 'release'], { stdio: 'inherit' });
