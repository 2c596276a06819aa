import type { ListDialect } from '../../sandbox/lists.cts';
import { API_PAGE, REAL_SERVICE } from '../../sandbox/lists.cts';
import { Sandbox } from '../../sandbox/service.cts';
import type { StoredRegistration } from '../../sandbox/state.cts';
import { SHEET_ROWS, sheetImportWorkflow } from '../chainedWorkflow.cts';
import { nodeOutput, RealN8n, waitFor } from '../instance.cts';

/**
 * Part of `npm run test:n8n`: the Poll Trigger and If Already Registered in a real n8n against the sandbox speaking
 * readings of the API page other than the real service's — every registration exactly once, nothing created twice —
 * and, on n8n 2.x, the Poll Trigger under n8n's durable scheduler, whose polls have a budget: a burst that takes longer
 * than one poll's budget to read at the service's pace comes out over several polls, each registration once.
 */

const DIALECTS: Array<{ name: string; dialect: ListDialect }> = [
	{ name: 'the API page: a bare array, no pages', dialect: { ...API_PAGE } },
	{
		name: 'pages of at most 50 without a total, the oldest first, ids under regId as numbers, createdAt as epoch ms',
		dialect: {
			...REAL_SERVICE,
			shape: 'dataOnly',
			cap: 50,
			order: 'oldestFirst',
			idKey: 'regId',
			numericIds: true,
			createdAt: 'epochMilliseconds',
		},
	},
];

/** n8n's shortest Poll Times: it refuses to activate a poll trigger more often than once a minute. */
const EVERY_MINUTE = { item: [{ mode: 'everyMinute' }] };

type Report = (problems: string[], line: string) => void;

const expectThat = (condition: boolean, problem: string) => (condition ? [] : [problem]);

/** The id a registration is stored under, from how the dialect lists it. */
function storedId(json: Record<string, unknown>): string {
	const id = json.id ?? json.regId ?? json.registrationId;
	return typeof id === 'number' ? `R${String(id).padStart(6, '0')}` : String(id);
}

function credentialFor(name: string) {
	return { id: `prDialect${name}`.slice(0, 16).padEnd(16, '0'), name: `Product Registration (${name})` };
}

function heldTwice(sandbox: Sandbox): number {
	const keys = [...sandbox.state.registrations.values()].map((registration) =>
		[registration.customerEmail, registration.productName, registration.formSlug].join('|'),
	);
	return keys.length - new Set(keys).size;
}

/** A 1,000-row sheet of 200 customers imported with If Already Registered: Skip, twice. */
async function checkSkip(n8n: RealN8n, sandbox: Sandbox, key: string, report: Report): Promise<void> {
	const rows = SHEET_ROWS;
	const id = `skip${key}`;
	await n8n.importWorkflow(sheetImportWorkflow(id, credentialFor(key)));
	for (const [run, outcome] of [
		[1, 'created'],
		[2, 'skipped'],
	] as const) {
		const before = sandbox.requests.length;
		const result = await n8n.execute(id, { timeoutMs: 300_000 });
		const items = nodeOutput(result.data, 'Register');
		const through = items.filter((item) => item.outcome === outcome).length;
		report(
			[
				...expectThat(
					through === rows,
					`run ${run}: ${rows} items ${outcome} expected, got ${through} of ${items.length}: ${result.data?.data.resultData.error?.message ?? JSON.stringify(items.find((item) => item.outcome !== outcome) ?? '').slice(0, 200)}`,
				),
				...expectThat(heldTwice(sandbox) === 0, `${heldTwice(sandbox)} registrations held twice`),
			],
			`Skip, a 1,000-row sheet of 200 customers, run ${run}: ${through} of ${rows} ${outcome}, ${sandbox.requests.length - before} requests, the service holds ${sandbox.state.registrations.size}`,
		);
	}
}

/** Registers `count` products, one customer each, in one request as a busy form would, and returns them. */
function register(sandbox: Sandbox, count: number, prefix: string): StoredRegistration[] {
	const start = sandbox.state.registrations.size;
	return sandbox.state.createRegistrations(
		Array.from({ length: count }, (_, index) => ({
			productName: 'Kettle K1',
			customerEmail: `${prefix}${start + index}@example.com`,
		})),
	).registrations;
}

/** A Poll Trigger that polls every minute, and a node that receives what it emits. */
function pollWorkflow(id: string, credential: { id: string; name: string }) {
	return {
		id,
		name: id,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'd0000000-0000-4000-8000-000000000001',
				name: 'New registration',
				type: 'n8n-nodes-product-registration.productRegistrationPollTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: { pollTimes: EVERY_MINUTE, event: 'newRegistration' },
				credentials: { productRegistrationApi: credential },
			},
			{
				id: 'd0000000-0000-4000-8000-000000000002',
				name: 'Received',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [220, 0],
				parameters: {},
			},
		],
		connections: { 'New registration': { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
	};
}

/** What the trigger emitted over all of a workflow's finished executions, and how many executions there were. */
async function emitted(n8n: RealN8n, workflowId: string, cookie: string) {
	const executions = (await n8n.executionsOf(workflowId, cookie)).filter(
		(execution) => execution.status !== 'running' && execution.status !== 'new',
	);
	return {
		ids: executions.flatMap((execution) => nodeOutput({ data: execution.data }, 'New registration').map(storedId)),
		executions: executions.length,
		failed: executions.filter((execution) => execution.status !== 'success').length,
	};
}

/** Problems with what a trigger emitted: each of `expected` once, nothing else. */
function eachOnce(given: string[], expected: string[]): string[] {
	const missing = expected.filter((id) => !given.includes(id));
	const twice = given.filter((id, index) => given.indexOf(id) !== index);
	const unexpected = given.filter((id) => !expected.includes(id));
	return expectThat(
		missing.length === 0 && twice.length === 0 && unexpected.length === 0,
		`each of the ${expected.length} registrations once expected; missing ${missing.length} (${missing.slice(0, 3)}), twice ${twice.length} (${twice.slice(0, 3)}), not new ${unexpected.length} (${unexpected.slice(0, 3)})`,
	);
}

/**
 * The Poll Triggers active on a started n8n while customers register in rounds, with each service at once; after each
 * round every registration so far must have come out of its trigger once.
 */
async function checkPolling(
	n8n: RealN8n,
	cookie: string,
	polled: Array<{ sandbox: Sandbox; workflowId: string; name: string }>,
	rounds: number[],
	report: Report,
): Promise<void> {
	const registered = new Map(polled.map(({ workflowId }) => [workflowId, [] as string[]]));
	const started = Date.now();
	for (const count of rounds) {
		for (const { sandbox, workflowId } of polled)
			registered.get(workflowId)!.push(...register(sandbox, count, `poll-`).map((registration) => registration.id));
		for (const { workflowId } of polled) {
			const expected = registered.get(workflowId)!.length;
			await waitFor(
				`${expected} registrations from ${workflowId}`,
				async () => ((await emitted(n8n, workflowId, cookie)).ids.length >= expected ? true : undefined),
				180_000,
			).catch(() => undefined);
		}
	}
	for (const { sandbox, workflowId, name } of polled) {
		const { ids, executions, failed } = await emitted(n8n, workflowId, cookie);
		report(
			[
				...eachOnce(ids, registered.get(workflowId)!),
				...expectThat(failed === 0, `${failed} execution(s) did not succeed`),
			],
			`Poll Trigger, ${name}: ${registered.get(workflowId)!.length} registrations in rounds of ${rounds.join(', ')}, ${ids.length} emitted in ${executions} executions within ${Math.round((Date.now() - started) / 1000)} s, ${sandbox.requestsTo('GET', '/api/registrations').length} list requests`,
		);
	}
}

/** The Poll Trigger and Skip over readings other than the real service's, in a fresh n8n of this version. */
export async function checkDialects(version: string, tarball: string, report: Report): Promise<void> {
	const n8n = await RealN8n.create(version);
	const sandboxes: Sandbox[] = [];
	try {
		await n8n.installPackage(tarball);
		const polled: Array<{ sandbox: Sandbox; workflowId: string; name: string }> = [];
		for (const [index, { name, dialect }] of DIALECTS.entries()) {
			const sandbox = await Sandbox.start();
			sandboxes.push(sandbox);
			sandbox.dialect = dialect;
			const key = `D${index}`;
			await n8n.importCredential({
				...credentialFor(key),
				type: 'productRegistrationApi',
				data: { baseUrl: sandbox.baseUrl, accessToken: sandbox.token },
			});
			await checkSkip(n8n, sandbox, key, (problems, line) => report(problems, `${name}: ${line}`));
			const workflowId = `poll${key}`;
			await n8n.importWorkflow(pollWorkflow(workflowId, credentialFor(key)));
			await n8n.activate(workflowId);
			polled.push({ sandbox, workflowId, name });
		}
		const listReads = () => polled.map(({ sandbox }) => sandbox.requestsTo('GET', '/api/registrations').length);
		const beforeStart = listReads();
		await n8n.start();
		const cookie = await n8n.ownerSession();
		// Each activation reads what is there first: what is registered after it is new. Skip has read the lists
		// already, so wait for reads since the start, then half a second without one (the activation's read is over).
		let lastReads = beforeStart;
		await waitFor('the activations of the poll workflows', () => {
			const reads = listReads();
			const settled = reads.every((count, index) => count > beforeStart[index] && count === lastReads[index]);
			lastReads = reads;
			return settled ? true : undefined;
		});
		await checkPolling(n8n, cookie, polled, [1, 120], report);
	} finally {
		await n8n.stop();
		await Promise.all(sandboxes.map(async (sandbox) => await sandbox.stop()));
		n8n.cleanUp();
	}
}

/**
 * n8n 2.x's durable scheduler (its poll triggers and durable cursors on), each poll given 10 s (a budget of 5 s): a
 * burst of 3,000 registrations against a service that allows 5 requests a second takes longer than one poll's budget
 * to read, so it comes out over several polls, a minute apart — each registration once.
 */
export async function checkDurableScheduler(version: string, tarball: string, report: Report): Promise<void> {
	const n8n = await RealN8n.create(version, {
		N8N_SCHEDULER_ENABLED: 'true',
		N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
		N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
		N8N_SCHEDULER_POLL_TIMEOUT: '10',
	});
	const sandbox = await Sandbox.start();
	try {
		sandbox.latencyMs = 20;
		await n8n.installPackage(tarball);
		const credential = credentialFor('Durable');
		await n8n.importCredential({
			...credential,
			type: 'productRegistrationApi',
			data: { baseUrl: sandbox.baseUrl, accessToken: sandbox.token },
		});
		await n8n.importWorkflow(pollWorkflow('pollDurable', credential));
		await n8n.activate('pollDurable');
		await n8n.start();
		const cookie = await n8n.ownerSession();
		// Under durable cursors n8n keeps nothing the activation's trial poll remembers unless it emits: the trigger
		// starts from its first scheduled poll (the second to ask the service).
		await waitFor(
			'the first scheduled poll',
			() => (sandbox.requestsTo('GET', '/api/registrations').length >= 2 ? true : undefined),
			120_000,
		);
		sandbox.limitRate({ perSecond: 5, burst: 5, retryAfter: true });
		const burst = register(sandbox, 3000, 'burst-').map((registration) => registration.id);
		const started = Date.now();
		await waitFor(
			'the burst from the trigger',
			async () => ((await emitted(n8n, 'pollDurable', cookie)).ids.length >= burst.length ? true : undefined),
			300_000,
		).catch(() => undefined);
		const { ids, executions, failed } = await emitted(n8n, 'pollDurable', cookie);
		report(
			[
				...eachOnce(ids, burst),
				...expectThat(executions > 1, `the burst should take several polls, took ${executions}`),
				...expectThat(failed === 0, `${failed} execution(s) did not succeed`),
			],
			`durable scheduler (poll timeout 10 s), a burst of ${burst.length} at 5 requests a second: ${ids.length} emitted in ${executions} executions within ${Math.round((Date.now() - started) / 1000)} s, ${sandbox.requestsTo('GET', '/api/registrations').length} list requests, ${sandbox.refusals?.refused ?? 0} refused`,
		);
	} finally {
		await n8n.stop();
		await sandbox.stop();
		n8n.cleanUp();
	}
}
