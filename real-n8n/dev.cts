import { seedSampleData } from '../sandbox/sampleData.cts';
import { Sandbox } from '../sandbox/service.cts';
import { importExamples } from './examples.cts';
import { N8N_LINES, packPackage } from './instance.cts';

/**
 * `npm run dev`: a real n8n to try the package by hand — the package packed from this checkout and installed as n8n's
 * community-package installer does, the sandbox with sample data, a credential pointing at it and every example
 * imported. The n8n line is the first of REAL_N8N_VERSIONS (1.123.81 unless set). Runs until Ctrl+C; run it again
 * after a change. (`n8n-node dev` would fetch n8n@latest from the registry each time, which this machine cannot.)
 */
async function main(): Promise<void> {
	const version = N8N_LINES[0];
	const sandbox = await Sandbox.start();
	seedSampleData(sandbox.state);
	const { n8n } = await importExamples(version, await packPackage(), sandbox);
	await n8n.start();
	await n8n.ownerSession();
	console.log(`n8n ${version} with this package: ${n8n.baseUrl} (owner@example.com / Passw0rd-for-tests)`);
	console.log(`the sandbox: ${sandbox.baseUrl}, token ${sandbox.token} (already in the credential)`);
	console.log('Ctrl+C stops both.');
	const stop = async () => {
		await n8n.stop();
		await sandbox.stop();
		process.exit(0);
	};
	process.once('SIGINT', () => void stop());
	process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
