import { writeDocsSection, writesDocs } from '../../scripts/docsSection.cts';
import { Sandbox } from '../../sandbox/service.cts';
import { CREDENTIAL, readExamples } from '../examples.cts';
import type { ServerProcess } from '../instance.cts';
import { freePort, N8N_LINES, packPackage, RealN8n } from '../instance.cts';
import type { Run } from './phases.cts';
import { changeStatusOnWorkers, crash, load, pollOnTheMain, rateLimited, uploadAcrossWorkers } from './phases.cts';
import { keepLogs, killByPid, LOGS, startPostgres, startRedis, stopAll, stoppers } from './processes.cts';
import { HEADER_CREDENTIAL, POLL_EXAMPLE, queueWorkflows } from './workflows.cts';

/**
 * `npm run test:queue`: the package in n8n's queue mode, as big shops run it — Redis, PostgreSQL, a main that takes
 * the webhooks and two workers (`--concurrency=10`) on this machine, each line of N8N_LINES — what happens when a
 * worker dies with creates on the wire, many executions against a service's rate limit, and the poll trigger while the
 * main restarts. Every part listens on 127.0.0.1 only and is stopped by its PID at the end, also on failure. Not part
 * of CI: it starts real servers and takes minutes. With --write-docs (and every phase run) each line's output replaces
 * that line's in docs/measured/queue.md.
 */

const ALL_PHASES = ['load', 'limited', 'status', 'crash', 'upload', 'poll'];
/** The phases to run (all unless QUEUE_PHASES names some, e.g. "load,crash"). */
const PHASES = process.env.QUEUE_PHASES?.split(',') ?? ALL_PHASES;

process.on('exit', stopAll);
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

interface LineReport {
	version: string;
	failures: string[];
	/** What the run said, line by line: the figures docs/measured/queue.md shows. */
	said: string[];
}

async function queueLine(version: string, tarball: string): Promise<LineReport> {
	const report: LineReport = { version, failures: [], said: [] };
	console.log(`\nn8n ${version} in queue mode (Redis, PostgreSQL, a main and two workers --concurrency=10)`);

	const redisPort = await startRedis();
	const postgresPort = await startPostgres();
	const sandbox = await Sandbox.start();
	stoppers.push(() => void sandbox.stop());
	const n8n = await RealN8n.create(version, {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redisPort),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgresPort),
		DB_POSTGRESDB_DATABASE: 'n8n',
		DB_POSTGRESDB_USER: 'postgres',
		DB_POSTGRESDB_PASSWORD: '',
		// n8n's pool of 2 a process lets the main's health check time out under 50 webhooks in flight.
		DB_POSTGRESDB_POOL_SIZE: '10',
		// A binary data mode that works across processes (filesystem mode does not): the database, 2.x's default in
		// queue mode.
		N8N_AVAILABLE_BINARY_DATA_MODES: 'filesystem,database',
		N8N_DEFAULT_BINARY_DATA_MODE: 'database',
	});
	stoppers.push(() => {
		keepLogs(n8n);
		n8n.cleanUp();
	});
	await n8n.installPackage(tarball);
	await n8n.importCredential({
		...CREDENTIAL,
		data: { baseUrl: sandbox.baseUrl, accessToken: sandbox.token },
	});
	await n8n.importCredential({
		...HEADER_CREDENTIAL,
		data: { name: 'Authorization', value: `Bearer ${sandbox.token}` },
	});
	for (const workflow of Object.values(queueWorkflows(sandbox))) {
		await n8n.importWorkflow(workflow);
		await n8n.activate(workflow.id);
	}
	// Imported inactive: the poll phase activates it, so that it does not poll what the other phases register.
	const pollExample = readExamples().find(({ file }) => file === POLL_EXAMPLE)!;
	await n8n.importWorkflow(pollExample.workflow);

	// Each process its own port, (2.x) its own port for the broker of its task runners and its own event log, as each
	// container has its own disk. A worker started in place of a dead one takes over its event log, as a restarted
	// container does: n8n marks the dead one's unfinished executions from it.
	const eventLogOf = new Map<ServerProcess, string>();
	const started = async (args: string[], eventLog: string) => {
		const server = await n8n.start(args, {
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
			N8N_EVENTBUS_LOGWRITER_LOGBASENAME: eventLog,
			...(args[0] === 'start' ? {} : { N8N_PORT: String(await freePort()) }),
		});
		stoppers.push(() => killByPid(server.pid, true));
		eventLogOf.set(server, eventLog);
		return server;
	};
	const startMain = async () => await started(['start'], 'n8nEventLog-main');
	const main = await startMain();
	const workers: ServerProcess[] = [];
	const startWorker = async (replacing?: ServerProcess) => {
		const eventLog = replacing ? eventLogOf.get(replacing)! : `n8nEventLog-worker-${workers.length + 1}`;
		workers.push(await started(['worker', '--concurrency=10'], eventLog));
	};
	await startWorker();
	await startWorker();
	const run: Run = {
		n8n,
		sandbox,
		cookie: await n8n.ownerSession(),
		postgresPort,
		main,
		workers,
		startWorker,
		restartMain: async (whileStopped) => {
			killByPid(run.main.pid, true);
			await whileStopped();
			run.main = await startMain();
		},
		say: (line) => {
			report.said.push(line);
			console.log(`  ${line}`);
		},
		check: (ok, failure) => {
			if (!ok) report.failures.push(failure);
		},
	};

	if (PHASES.includes('load')) await load(run);
	if (PHASES.includes('limited')) await rateLimited(run);
	if (PHASES.includes('status')) await changeStatusOnWorkers(run);
	if (PHASES.includes('crash')) for (const ifExists of ['skip', 'create'] as const) await crash(run, ifExists);
	if (PHASES.includes('upload')) await uploadAcrossWorkers(run);
	if (PHASES.includes('poll')) await pollOnTheMain(run, pollExample.workflow.id);
	return report;
}

async function main(): Promise<void> {
	const tarball = await packPackage();
	const reports: LineReport[] = [];
	for (const version of N8N_LINES) {
		try {
			reports.push(await queueLine(version, tarball));
		} finally {
			stopAll();
		}
	}
	const failures = reports.flatMap((report) => report.failures.map((failure) => `${report.version}: ${failure}`));
	console.log(`\nn8n's logs: ${LOGS}`);
	console.log(failures.length === 0 ? 'queue mode: every check passed' : `queue mode: FAILED\n${failures.join('\n')}`);
	if (writesDocs() && PHASES.length === ALL_PHASES.length) {
		for (const { version, said, failures: failed } of reports) {
			const verdict = failed.length === 0 ? 'every check passed' : `FAILED: ${failed.join('; ')}`;
			const output = ['```', ...said, verdict, '```'].join('\n');
			writeDocsSection(
				'queue.md',
				`queue-${version}`,
				`REAL_N8N_VERSIONS=${version} npm run test:queue -- --write-docs`,
				output,
			);
		}
	}
	process.exitCode = failures.length === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
	console.error(error);
	stopAll();
	process.exit(1);
});
