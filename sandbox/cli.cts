import { describeRateLimit, rateLimitFromEnvironment } from './refusals.cts';
import { seedSampleData } from './sampleData.cts';
import { Sandbox } from './service.cts';

/** `npm run sandbox`: the service and its object storage on 127.0.0.1, for a real n8n to talk to. */
async function main(): Promise<void> {
	const sandbox = await Sandbox.start({
		port: Number(process.env.SANDBOX_PORT ?? 5680),
		storagePort: Number(process.env.SANDBOX_STORAGE_PORT ?? 5681),
		token: process.env.SANDBOX_TOKEN,
	});
	sandbox.latencyMs = Number(process.env.SANDBOX_LATENCY_MS ?? 0);
	const rateLimit = rateLimitFromEnvironment(process.env);
	sandbox.limitRate(rateLimit);
	seedSampleData(sandbox.state);

	console.log(
		[
			'Product registration sandbox is running.',
			'',
			`  Base URL:       ${sandbox.baseUrl}`,
			`  Access Token:   ${sandbox.token}`,
			`  Object storage: ${sandbox.storage.url} (uploads land here)`,
			`  Rate limit:     ${rateLimit ? describeRateLimit(rateLimit) : 'none (SANDBOX_RATE=2 sets one)'}`,
			'',
			'In n8n, create a "Product Registration API" credential with this Base URL and Access Token.',
			'Data lives in memory and is gone when the sandbox stops. Press Ctrl+C to stop.',
		].join('\n'),
	);

	const stop = () => {
		void sandbox.stop().then(() => process.exit(0));
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
