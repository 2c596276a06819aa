import type { Sandbox } from '../../sandbox/service.cts';
import type { RealN8n, ServerProcess } from '../instance.cts';
import { callBody, countEach, DATABASE_NOT_READY, fire, postToWebhook, webhookUrl } from './calls.cts';
import type { Execution } from './ledger.cts';
import { jobsOf, lastExecutionId, settledExecutions, startedOn, summarize, tally, underWay } from './ledger.cts';
import { watch } from './processes.cts';
import { POLL_ROUNDS, RECEIPT_REGISTRATION, STATUS_ITEMS } from './workflows.cts';
import { sleep, waitUntil } from './wait.cts';

/** The phases of `npm run test:queue`, each a check of what queue mode does to the package's promises. */

const CALLS = 1000;
const IN_FLIGHT = 50;
const WARM_UP_CALLS = 100;
/** The load calls of each case are sent in this many rounds, the cases taking turns, so that no case always goes first. */
const LOAD_ROUNDS = 4;
/**
 * How far this node's registrations/s may fall under the HTTP Request node's before the load check fails: with code
 * unchanged, the ratio of the two moved from 0.93× to 1.11× between runs on 2 cores (docs/measured/queue.md), so a
 * check at 1.0× failed by chance about one run in three, and a real slowdown shows only past this.
 */
const LOAD_RATIO_NOISE = 0.1;
const CRASH_CALLS = 300;
/**
 * The rate-limited case: a form's submissions arriving together, against the service's limit when pushed. As many in
 * flight as the load case: with 300 at once n8n's main runs out of database connections and answers 503 itself.
 */
const LIMITED_CALLS = 300;
const LIMITED_RATE = { perSecond: 5, burst: 5, retryAfter: true };
/** What the rate-limited case must show: refused requests per request served, and the share of the service's rate. */
const MAX_REFUSED_PER_SERVED = 0.5;
const MIN_SHARE_OF_RATE = 0.9;
/** n8n 1.x re-runs a stalled job 60–90 s after its worker died; 2.x gives up on it. Counting waits past both. */
const AFTER_CRASH_WAIT_MS = Number(process.env.QUEUE_CRASH_WAIT_MS ?? 180_000);
/**
 * How long the caller of the crash case waits for an answer: n8n answers for a stalled execution only once it has
 * failed it or re-run it.
 */
const CALLER_PATIENCE_MS = 240_000;

type Say = (line: string) => void;
type Check = (ok: boolean, failure: string) => void;

/** What a phase needs: the running parts and the way to report. */
export interface Run {
	n8n: RealN8n;
	sandbox: Sandbox;
	cookie: string;
	postgresPort: number;
	main: ServerProcess;
	/** The workers alive now (a crash replaces the one it kills). */
	workers: ServerProcess[];
	/** Starts a worker, in place of `replacing` (a dead one) if given. */
	startWorker: (replacing?: ServerProcess) => Promise<void>;
	/** Stops the main, does `whileStopped`, and starts it again (it reads workflows' activation only as it starts). */
	restartMain: (whileStopped: () => Promise<void>) => Promise<void>;
	say: Say;
	check: Check;
}

/**
 * 1,000 calls, 50 in flight, through this node (If Already Registered: Skip) and through the HTTP Request node doing
 * the same create, after a warm-up of each, in rounds that the cases take in turn: registrations/s end to end (the
 * rounds' time added up), executions, the workers' shares, peak RSS, CPU per call.
 * The HTTP Request node runs twice: with its token in n8n's Header Auth credential — the way n8n tells users to hold a
 * secret, and the one to compare with, since any workflow using a credential pays n8n's credential checks on the main
 * and its read on the worker — and with the token typed into the workflow, which pays neither.
 */
export async function load(run: Run): Promise<void> {
	const { n8n, sandbox, say, check } = run;
	const cases = [
		{
			name: 'this node (If Already Registered: Skip)',
			path: 'register-skip',
			workflowId: 'queueSkip',
		},
		{
			name: 'the HTTP Request node (token in a Header Auth credential)',
			path: 'register-http-credential',
			workflowId: 'queueHttpCredential',
		},
		{
			name: 'the HTTP Request node (token typed into the workflow)',
			path: 'register-http-inline',
			workflowId: 'queueHttpInline',
		},
	];
	const databaseNotReady = () => run.main.log().split(DATABASE_NOT_READY).length - 1;
	const databaseNotReadyBefore = databaseNotReady();
	for (const { path } of cases) await fire(webhookUrl(n8n, path), WARM_UP_CALLS, IN_FLIGHT, callBody('warm-up'));
	await waitUntil('the warm-up', () => sandbox.state.registrations.size >= WARM_UP_CALLS * cases.length, 120_000);
	const totals = cases.map(() => ({
		statuses: [] as Array<number | string>,
		executions: [] as Execution[],
		registrations: 0,
		distinct: 0,
		twice: 0,
		ms: 0,
		jobs: run.workers.map(() => 0),
		peaks: {} as Record<string, number>,
		cpu: {} as Record<string, number>,
	}));
	const perRound = CALLS / LOAD_ROUNDS;
	for (let round = 0; round < LOAD_ROUNDS; round++) {
		for (let turn = 0; turn < cases.length; turn++) {
			const index = (round + turn) % cases.length;
			const { path, workflowId } = cases[index];
			const total = totals[index];
			sandbox.reset();
			const before = lastExecutionId(run.postgresPort);
			const jobsBefore = run.workers.map(jobsOf);
			const memory = watch({
				main: run.main.pid!,
				worker1: run.workers[0].pid!,
				worker2: run.workers[1].pid!,
				'this test and the sandbox': process.pid,
			});
			const startedAt = Date.now();
			const statuses = await fire(webhookUrl(n8n, path), perRound, IN_FLIGHT, callBody(`load-${round}`));
			total.statuses.push(...statuses);
			// The registrations of the calls n8n took: a call it did not take has none to wait for.
			const accepted = statuses.filter((status) => status === 200).length;
			await waitUntil(`${accepted} registrations`, () => sandbox.state.registrations.size >= accepted, 600_000).catch(
				() => undefined,
			);
			total.ms += Date.now() - startedAt;
			total.executions.push(...(await settledExecutions(run.postgresPort, workflowId, before, perRound)));
			for (const [name, ms] of Object.entries(memory.stop())) total.cpu[name] = (total.cpu[name] ?? 0) + ms;
			for (const [name, mb] of Object.entries(memory.peaks)) total.peaks[name] = Math.max(total.peaks[name] ?? 0, mb);
			run.workers.forEach((worker, slot) => (total.jobs[slot] += jobsOf(worker) - jobsBefore[slot]));
			const { distinct, twice } = tally(sandbox);
			total.registrations += sandbox.state.registrations.size;
			total.distinct += distinct;
			total.twice += twice;
		}
	}
	const rates = totals.map(({ ms }) => CALLS / (ms / 1000));
	cases.forEach(({ name }, index) => {
		const { statuses, executions, registrations, distinct, twice, jobs, peaks, cpu } = totals[index];
		const accepted = statuses.filter((status) => status === 200).length;
		say(
			`load, ${name}: calls answered ${countEach(statuses)}, ${registrations} registrations (${distinct} distinct, ${twice} twice), ${rates[index].toFixed(1)} registrations/s, executions ${summarize(executions)}, workers ran ${jobs.join(' + ')}, peak RSS main ${peaks.main} MB, workers ${peaks.worker1} / ${peaks.worker2} MB; CPU per call: ${Object.entries(
				cpu,
			)
				.map(([process, ms]) => `${process} ${(ms / CALLS).toFixed(1)} ms`)
				.join(', ')}`,
		);
		check(accepted === CALLS, `${name}: ${accepted} of ${CALLS} calls accepted`);
		check(
			registrations === CALLS && distinct === CALLS,
			`${name}: ${registrations} registrations, ${distinct} distinct`,
		);
		check(
			executions.length === CALLS && executions.every(({ status }) => status === 'success'),
			`${name}: executions ${summarize(executions)}`,
		);
		check(
			jobs.every((count) => count > 0),
			`${name}: a worker ran nothing (${jobs.join(' + ')})`,
		);
	});
	say(
		`load: n8n's main answered "${DATABASE_NOT_READY}" ${databaseNotReady() - databaseNotReadyBefore} times (503: its database ping had timed out, and no workflow ran); each such call was sent again 2 s later`,
	);
	const [ours, withCredential, inline] = rates;
	say(
		`load: this node ${(ours / withCredential).toFixed(2)}× the registrations/s of the HTTP Request node with a credential (${(ours / inline).toFixed(2)}× with the token typed in)`,
	);
	check(
		ours >= withCredential * (1 - LOAD_RATIO_NOISE),
		`load: this node ${ours.toFixed(1)}/s, more than ${LOAD_RATIO_NOISE * 100}% below the HTTP Request node's ${withCredential.toFixed(1)}/s`,
	);
}

/**
 * 300 webhook calls, 50 in flight, each an execution that creates one registration (plain Create, answered when it
 * finishes), against a service that allows 5 requests a second: nothing lost, nothing twice, the requests it took a
 * second within 10% of its rate, at most 0.5 requests refused per request served (the executions a worker runs at
 * once share one pace).
 */
export async function rateLimited(run: Run): Promise<void> {
	const { n8n, sandbox, say, check } = run;
	sandbox.reset();
	sandbox.limitRate(LIMITED_RATE);
	try {
		const before = lastExecutionId(run.postgresPort);
		const statuses = await fire(
			webhookUrl(n8n, 'register-plain-answered'),
			LIMITED_CALLS,
			IN_FLIGHT,
			callBody('limited'),
			600_000,
		);
		const executions = await settledExecutions(run.postgresPort, 'queuePlainAnswered', before, LIMITED_CALLS);
		const { distinct, twice } = tally(sandbox);
		const refused = sandbox.refusals!.refused;
		const served = sandbox.requests.length - refused;
		// As the service saw it, from the first request it received to the last it took: n8n 2.x answers a webhook 404
		// for a while after it starts, which is no part of the pace.
		const receivedAt = sandbox.requests.map((request) => request.receivedAt);
		const takenAt = sandbox.requests.filter((request) => !request.refused).map((request) => request.receivedAt);
		const rate = served / ((Math.max(...takenAt) - Math.min(...receivedAt)) / 1000);
		say(
			`rate limit of ${LIMITED_RATE.perSecond} requests/s, ${LIMITED_CALLS} calls (${IN_FLIGHT} in flight), each a Create: calls answered ${countEach(statuses)}, ${sandbox.state.registrations.size} registrations (${distinct} distinct, ${twice} twice), ${rate.toFixed(2)} requests taken a second, ${refused} requests refused for ${served} served (${(refused / served).toFixed(2)} per request served), executions ${summarize(executions)}`,
		);
		check(
			distinct === LIMITED_CALLS && twice === 0 && sandbox.state.registrations.size === LIMITED_CALLS,
			`rate limit: ${sandbox.state.registrations.size} registrations, ${distinct} distinct, ${twice} twice`,
		);
		check(refused <= MAX_REFUSED_PER_SERVED * served, `rate limit: ${refused} refused for ${served} served`);
		check(
			rate >= MIN_SHARE_OF_RATE * LIMITED_RATE.perSecond,
			`rate limit: ${rate.toFixed(2)} requests taken a second, below ${MIN_SHARE_OF_RATE} × the service's ${LIMITED_RATE.perSecond}/s`,
		);
	} finally {
		sandbox.limitRate(undefined);
	}
}

/** A 5,000-item Change Status, started by a webhook call so that a worker runs it. */
export async function changeStatusOnWorkers({ n8n, sandbox, say, check, workers }: Run): Promise<void> {
	sandbox.reset();
	sandbox.state.createRegistrations(
		Array.from({ length: STATUS_ITEMS }, (_, index) => ({
			productName: `P${index}`,
		})),
	);
	const jobsBefore = workers.map(jobsOf);
	const startedAt = Date.now();
	await fire(webhookUrl(n8n, 'change-status'), 1, 1, () => ({}));
	const approved = () =>
		[...sandbox.state.registrations.values()].filter((registration) => registration.status === 'approved').length;
	await waitUntil(`${STATUS_ITEMS} status changes`, () => approved() >= STATUS_ITEMS, 600_000).catch(() => undefined);
	const ranOn = workers.map((worker, index) => jobsOf(worker) - jobsBefore[index]).findIndex((jobs) => jobs > 0);
	say(
		`Change Status on ${STATUS_ITEMS} items: ${approved()} registrations approved in ${((Date.now() - startedAt) / 1000).toFixed(1)} s, run by worker ${ranOn + 1}`,
	);
	check(approved() === STATUS_ITEMS, `Change Status: ${approved()} of ${STATUS_ITEMS} approved`);
	check(ranOn >= 0, 'Change Status: no worker ran it');
}

/**
 * 300 calls while the service takes 500 ms to answer a create it has already stored; one worker is killed by its PID
 * while its creates are on the wire. The workflow answers each call when its last node has finished, so the caller
 * learns of an execution that failed; like the CRMs and form services that feed these workflows, it sends any call not
 * answered 200 again. After n8n has done what it does (1.x re-runs the stalled executions, 2.x fails them), the
 * failed executions are also retried as a user would: through the REST API the Retry button calls.
 */
export async function crash(run: Run, ifExists: 'skip' | 'create'): Promise<void> {
	const { n8n, sandbox, cookie, say, check } = run;
	const name = ifExists === 'skip' ? 'If Already Registered: Skip' : 'plain Create (Create Anyway)';
	const workflowId = ifExists === 'skip' ? 'queueSkipAnswered' : 'queuePlainAnswered';
	const url = webhookUrl(n8n, ifExists === 'skip' ? 'register-skip-answered' : 'register-plain-answered');
	const body = callBody('crash');
	sandbox.reset();
	sandbox.answerDelayMs = 500;
	const before = lastExecutionId(run.postgresPort);
	const victim = run.workers.shift()!;
	const calls = fire(url, CRASH_CALLS, IN_FLIGHT, body, CALLER_PATIENCE_MS);
	await waitUntil('creates on the wire', () => sandbox.inFlight >= 5 && underWay(victim).length >= 5, 60_000);
	const killed = underWay(victim);
	const onTheWire = sandbox.inFlight;
	process.kill(victim.pid!, 'SIGKILL');
	const killedAt = Date.now();
	await run.startWorker(victim);
	const answers = await calls;
	const unanswered = answers.flatMap((status, call) => (status === 200 ? [] : [call]));
	const resent = await fire(url, unanswered.length, IN_FLIGHT, (index) => body(unanswered[index]), CALLER_PATIENCE_MS);
	await sleep(Math.max(0, AFTER_CRASH_WAIT_MS - (Date.now() - killedAt)));
	const executions = await settledExecutions(run.postgresPort, workflowId, before, CRASH_CALLS + unanswered.length);
	const rerun = killed.filter((id) => run.workers.some((worker) => startedOn(worker).includes(id)));
	const beforeRetries = tally(sandbox);
	const failed = executions.filter(({ status }) => status !== 'success');
	const retried = await Promise.all(
		failed.map(async ({ id }) => {
			const response = await fetch(`${n8n.baseUrl}/rest/executions/${id}/retry`, {
				method: 'POST',
				headers: { cookie, 'content-type': 'application/json' },
				body: JSON.stringify({ loadWorkflow: false }),
				signal: AbortSignal.timeout(CALLER_PATIENCE_MS),
			}).catch(() => undefined);
			return response?.ok === true;
		}),
	);
	const retries =
		failed.length > 0
			? (await settledExecutions(run.postgresPort, workflowId, before, executions.length + failed.length)).filter(
					({ id }) => !executions.some((execution) => execution.id === id),
				)
			: [];
	sandbox.answerDelayMs = 0;
	const { distinct, twice } = tally(sandbox);
	const lost = CRASH_CALLS - distinct;
	say(
		`crash, ${name}: a worker SIGKILLed with ${killed.length} executions under way (${onTheWire} requests at the service); n8n re-ran ${rerun.length} of them on another worker; the caller got ${countEach(answers)} and sent the ${unanswered.length} not answered 200 again (answered ${countEach(resent)}); ${(AFTER_CRASH_WAIT_MS / 1000).toFixed(0)} s after the kill the executions: ${summarize(executions)}; ${retried.filter(Boolean).length} of ${failed.length} failed ones retried through the REST API (before: ${beforeRetries.twice} twice, ${CRASH_CALLS - beforeRetries.distinct} lost), the retries: ${summarize(retries)}; ${distinct} of ${CRASH_CALLS} registrations made, ${twice} twice, ${lost} lost`,
	);
	if (ifExists === 'skip') check(twice === 0 && lost === 0, `crash with Skip: ${twice} twice, ${lost} lost`);
}

/** Upload File → Change Status with the returned url, run on a worker; the file arrives with the webhook call. */
export async function uploadAcrossWorkers({ n8n, sandbox, say, check }: Run): Promise<void> {
	sandbox.reset();
	sandbox.state.createRegistrations([{ productName: 'Kettle K1', customerEmail: 'ann@example.com' }]);
	const receipt = Buffer.alloc(3 * 1024 * 1024, 'receipt of order 1001 ');
	const form = new FormData();
	form.append('receipt', new Blob([receipt], { type: 'application/pdf' }), 'receipt-1001.pdf');
	const response = await postToWebhook(webhookUrl(n8n, 'receipt'), {
		body: form,
	});
	const attached = () => sandbox.state.registrations.get(RECEIPT_REGISTRATION)?.statusHistory.at(-1)?.assets?.[0];
	await waitUntil('the receipt attached', () => attached() !== undefined, 120_000).catch(() => undefined);
	const asset = attached();
	const stored = asset ? Buffer.from(await (await fetch(asset.url)).arrayBuffer()) : undefined;
	say(
		`upload across processes (binary data in the database): webhook ${response.status}, the 3 MiB receipt ${stored?.equals(receipt) ? 'stored whole' : 'NOT stored whole'}, attached as ${asset ? `"${asset.name}"` : 'nothing'}`,
	);
	check(stored?.equals(receipt) === true, 'upload: the receipt was not stored whole or not attached');
}

/**
 * The poll trigger in queue mode: n8n polls on the main and hands what a poll emits to the workers. The example that
 * sets each new registration to Processing is activated, then customers register in POLL_ROUNDS, the last while the
 * main restarts; each registration must be set to Processing exactly once, by executions the workers ran.
 */
export async function pollOnTheMain(run: Run, workflowId: string): Promise<void> {
	const { sandbox, say, check } = run;
	sandbox.reset();
	const before = lastExecutionId(run.postgresPort);
	const jobsBefore = run.workers.map(jobsOf);
	const polls = () => sandbox.requestsTo('GET', '/api/registrations').length;
	await run.restartMain(async () => await run.n8n.activate(workflowId));
	// The activation's one small request marks "now": registrations after it are new.
	await waitUntil('the activation of the poll example', () => polls() > 0, 120_000);
	const registered: string[] = [];
	const register = (count: number) => {
		const customers = Array.from({ length: count }, (_, index) => ({
			productName: 'Kettle K1',
			customerEmail: `poll-${registered.length + index + 1}@example.com`,
		}));
		registered.push(...sandbox.state.createRegistrations(customers).registrations.map(({ id }) => id));
	};
	const timesSetToProcessing = () =>
		registered.map(
			(id) =>
				sandbox.state.registrations.get(id)?.statusHistory.filter(({ status }) => status === 'Processing').length ?? 0,
		);
	const rounds: string[] = [];
	for (const { count, mainRestarts } of POLL_ROUNDS) {
		const startedAt = Date.now();
		if (mainRestarts) await run.restartMain(async () => register(count));
		else register(count);
		await waitUntil(
			`${registered.length} registrations set to Processing`,
			() => timesSetToProcessing().every((times) => times > 0),
			240_000,
		).catch(() => undefined);
		const seconds = Math.round((Date.now() - startedAt) / 1000);
		rounds.push(`${count}${mainRestarts ? ' while the main restarted' : ''} (through in ${seconds} s)`);
	}
	// One poll more, after which nothing may have come out again.
	const pollsBefore = polls();
	await waitUntil('one more poll', () => polls() > pollsBefore, 120_000).catch(() => undefined);
	const executions = await settledExecutions(run.postgresPort, workflowId, before, 1);
	const times = timesSetToProcessing();
	const once = times.filter((count) => count === 1).length;
	const again = times.filter((count) => count > 1).length;
	const never = times.filter((count) => count === 0).length;
	const jobs = run.workers.map((worker, slot) => jobsOf(worker) - (jobsBefore[slot] ?? 0));
	say(
		`poll trigger at every minute on the main, ${registered.length} registrations in rounds of ${rounds.join(', ')}: ${polls()} requests to the service, executions ${summarize(executions)}, workers ran ${jobs.join(' + ')}; set to Processing once ${once}, more than once ${again}, never ${never}`,
	);
	check(once === registered.length, `poll: ${once} of ${registered.length} set to Processing once`);
	check(
		executions.length > 0 && executions.every(({ status }) => status === 'success'),
		`poll: executions ${summarize(executions)}`,
	);
	const ranOnWorkers = jobs.reduce((sum, count) => sum + count, 0);
	check(ranOnWorkers === executions.length, `poll: the workers ran ${ranOnWorkers} of ${executions.length} executions`);
}
