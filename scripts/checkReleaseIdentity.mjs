// Run by the release workflow before it publishes: the owner's identity is set where npm and the licence read it.
// package.json's repository, homepage, bugs and author, and the LICENSE holder ship as placeholders (OWNER) until the
// owner sets them; npm's provenance check also needs `repository` to be the GitHub repository that publishes.
import { readFileSync } from 'node:fs';

const packageJson = JSON.parse(readFileSync('package.json', 'utf8'));
const holder = /^Copyright \(c\) \d{4} (.+)$/m.exec(readFileSync('LICENSE', 'utf8'))?.[1];
const fields = {
	repository: packageJson.repository?.url,
	homepage: packageJson.homepage,
	bugs: packageJson.bugs?.url,
	'author.name': packageJson.author?.name,
	'author.email': packageJson.author?.email,
	'LICENSE holder': holder,
};
const problems = Object.entries(fields)
	.filter(([, value]) => typeof value !== 'string' || value.trim() === '' || /OWNER|example\.com/.test(value))
	.map(([name, value]) => `${name} is still a placeholder: ${JSON.stringify(value)}`);
if (holder !== undefined && holder !== packageJson.author?.name) {
	problems.push(`the LICENSE holder (${holder}) is not the author in package.json (${packageJson.author?.name})`);
}
const repository = process.env.GITHUB_REPOSITORY;
if (repository && !String(fields.repository).includes(`github.com/${repository}`)) {
	problems.push(`repository (${fields.repository}) is not this repository (github.com/${repository})`);
}
for (const problem of problems) console.log(`::error::${problem}`);
console.log(problems.length === 0 ? 'The owner identity is set.' : 'Set these in package.json and LICENSE before releasing (docs/development.md#releasing).');
process.exitCode = problems.length === 0 ? 0 : 1;
