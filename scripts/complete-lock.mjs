// `node scripts/complete-lock.mjs`, after `npm install` changed package-lock.json on a machine whose registry serves
// only this platform's native builds: npm then leaves the other platforms' optional bindings (e.g. of unrs-resolver,
// used by n8n's lint configuration) out of the lock, and `npm ci` refuses the lock everywhere. This adds each missing
// one as the optional, platform-bound entry npm would have written; npm skips them on other platforms.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const lockPath = join(dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));

const OS = ['android', 'darwin', 'freebsd', 'linux', 'openharmony', 'win32'];
const CPU = ['arm64', 'arm', 'x64', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x'];

/** os, cpu and libc from a binding's name, e.g. `@scope/binding-linux-arm64-musl`. */
function platformOf(name) {
	const parts = name.split('/').pop().split('-');
	const os = OS.find((candidate) => parts.includes(candidate));
	const cpu = CPU.find((candidate) => parts.includes(candidate));
	if (!os || !cpu) return undefined;
	const libc = os !== 'linux' ? undefined : parts.some((part) => part.startsWith('musl')) ? 'musl' : 'glibc';
	return { os, cpu, libc };
}

const added = [];
for (const [path, entry] of Object.entries(lock.packages)) {
	for (const name of Object.keys(entry.optionalDependencies ?? {})) {
		const key = `${path === '' ? '' : `${path}/`}node_modules/${name}`.replace(/^\//, '');
		if (lock.packages[key] || lock.packages[`node_modules/${name}`]) continue;
		const platform = platformOf(name);
		if (!platform) continue;
		lock.packages[`node_modules/${name}`] = {
			version: entry.optionalDependencies[name].replace(/^[\^~]/, ''),
			cpu: [platform.cpu],
			dev: entry.dev,
			...(platform.libc ? { libc: [platform.libc] } : {}),
			optional: true,
			os: [platform.os],
		};
		added.push(name);
	}
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length === 0 ? 'package-lock.json: nothing missing' : `package-lock.json: added ${added.join(', ')}`);
