import { startMisbehavingServer } from '../../harness/misbehavingServer.cts';
import { ECHO_LIMIT } from '../../nodes/shared/transport/quotedAnswer';
import type { Sandbox } from '../../sandbox/service.cts';
import { chainedWorkflow, SHEET_ROWS, sheetImportWorkflow } from '../chainedWorkflow.cts';
import { CREDENTIAL } from '../examples.cts';
import type { ExecutionResult, RealN8n } from '../instance.cts';
import { nodeOutput } from '../instance.cts';
import { expectThat } from './exampleChecks.cts';

/** One-off checks of the node in a real n8n against a service that misbehaves: slow, paged, paced or flooding. */

/** Manual Trigger → one node, as a workflow to import. */
const oneNodeWorkflow = (id: string, node: Record<string, unknown>) =>
	chainedWorkflow(id, [{ name: 'Under test', ...node }]);

/**
 * Runs this node (its credential pointed at `service`) and the HTTP Request node, each alone after a Manual Trigger
 * by `n8n execute`, one after the other: the same call made both ways against the same misbehaving service.
 */
async function runBesideHttpRequest(
	n8n: RealN8n,
	service: { url: string },
	name: string,
	ours: Record<string, unknown>,
	http: Record<string, unknown>,
	timeoutMs: number,
): Promise<{ ours: ExecutionResult; http: ExecutionResult }> {
	const credential = { ...CREDENTIAL, id: `prCredential${name}`, name: `${name} service` };
	await n8n.importCredential({ ...credential, data: { baseUrl: service.url, accessToken: 'token' } });
	await n8n.importWorkflow(
		oneNodeWorkflow(`${name}Node`, {
			type: 'n8n-nodes-product-registration.productRegistration',
			typeVersion: 1,
			parameters: ours,
			credentials: { [credential.type]: { id: credential.id, name: credential.name } },
		}),
	);
	await n8n.importWorkflow(
		oneNodeWorkflow(`${name}Http`, { type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, parameters: http }),
	);
	return {
		ours: await n8n.execute(`${name}Node`, { timeoutMs }),
		http: await n8n.execute(`${name}Http`, { timeoutMs }),
	};
}

/**
 * Get Many against a service that sends its headers and then a byte every second, with Timeout 5,000 ms and Retries
 * 0: the run must end within 10 s with the timeout message. The HTTP Request node with the same timeout is run beside
 * it (and killed after a minute), to show what the Timeout means there.
 */
export async function checkDeadline(n8n: RealN8n): Promise<string[]> {
	const trickle = await startMisbehavingServer('trickle');
	try {
		const { ours, http } = await runBesideHttpRequest(
			n8n,
			trickle,
			'deadline',
			{ resource: 'registration', operation: 'getAll', returnAll: true, options: { timeout: 5000, maxRetries: 0 } },
			{ url: `${trickle.url}/api/registrations`, options: { timeout: 5000 } },
			60_000,
		);
		const oursRun = ours.data?.data.resultData.runData['Under test']?.[0];
		const message = ours.data?.data.resultData.error?.message ?? '';
		const httpRun = http.data?.data.resultData.runData['Under test']?.[0];
		const problems = expectThat(
			oursRun !== undefined && oursRun.executionTime < 10_000 && message.includes('did not answer within 5 seconds'),
			`Get Many should end within 10 s with the timeout message, got ${oursRun?.executionTime} ms: ${message}`,
		);
		console.log(
			`  ${problems.length === 0 ? 'ok  ' : 'FAIL'} deadline: Get Many against a trickling service, Timeout 5 s, Retries 0: ended after ${oursRun?.executionTime} ms (n8n's executionTime; ${ours.output.ms} ms with n8n's start-up): "${message}"`,
		);
		console.log(
			`       the HTTP Request node, Timeout 5 s, same service: ${httpRun ? `ended after ${httpRun.executionTime} ms` : `still running when killed after ${Math.round(http.output.ms / 1000)} s`}`,
		);
		return problems;
	} finally {
		await trickle.stop();
	}
}

/**
 * Get Many with Return All, as a workflow saved by 0.3 holds it (the form typed as text, before it became a locator),
 * against the sandbox's paged list of a form holding 250 registrations: every one must come out once, in 3 pages.
 */
export async function checkPagedList(n8n: RealN8n, sandbox: Sandbox): Promise<string[]> {
	const count = 250;
	sandbox.state.createRegistrations(
		Array.from({ length: count }, (_, index) => ({
			productName: 'Blender B3',
			customerEmail: `claimant${index + 1}@example.com`,
			type: 'warranty-claim',
		})),
	);
	const savedBy03 = {
		resource: 'registration',
		operation: 'getAll',
		returnAll: true,
		filters: { formSlug: 'warranty-claim' },
	};
	await n8n.importWorkflow(
		oneNodeWorkflow('pagedList', {
			type: 'n8n-nodes-product-registration.productRegistration',
			typeVersion: 1,
			parameters: savedBy03,
			credentials: { [CREDENTIAL.type]: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
		}),
	);
	const before = sandbox.requestsTo('GET', '/api/registrations').length;
	const result = await n8n.execute('pagedList', { timeoutMs: 120_000 });
	const items = nodeOutput(result.data, 'Under test');
	const pages = sandbox
		.requestsTo('GET', '/api/registrations')
		.slice(before)
		.map((request) => `page=${request.query.page}&limit=${request.query.limit}`);
	const ids = new Set(items.map((item) => item.id));
	const problems = expectThat(
		items.length === count && ids.size === count && items.every((item) => item.type === 'warranty-claim'),
		`${count} registrations of warranty-claim, each once, expected; got ${items.length} items, ${ids.size} distinct: ${result.data?.data.resultData.error?.message ?? ''}`,
	);
	console.log(
		`  ${problems.length === 0 ? 'ok  ' : 'FAIL'} paged list: Get Many, Return All, form typed as text (saved by 0.3), over a form of ${count} registrations listed 20 a page by default: ${items.length} items, ${ids.size} distinct, requests ${pages.join(', ')}`,
	);
	return problems;
}

/**
 * A 1,000-row sheet of 200 customers imported with If Already Registered: Skip against a service that allows 2
 * requests a second (429 with Retry-After beyond), then imported again: every item must come through each time,
 * created then skipped, and nothing be held twice.
 */
export async function checkImportAtServicePace(n8n: RealN8n, sandbox: Sandbox): Promise<string[]> {
	const rows = SHEET_ROWS;
	await n8n.importWorkflow(sheetImportWorkflow('paceImport', CREDENTIAL));
	sandbox.limitRate({ perSecond: 2, burst: 2, retryAfter: true });
	const problems: string[] = [];
	try {
		for (const [run, outcome] of [
			[1, 'created'],
			[2, 'skipped'],
		] as const) {
			const requestsBefore = sandbox.requests.length;
			const refusedBefore = sandbox.refusals!.refused;
			const result = await n8n.execute('paceImport', { timeoutMs: 300_000 });
			const items = nodeOutput(result.data, 'Register');
			const through = items.filter((item) => item.outcome === outcome).length;
			const refused = sandbox.refusals!.refused - refusedBefore;
			const runProblems = expectThat(
				through === rows && !result.data?.data.resultData.error,
				`run ${run}: ${rows} items ${outcome} expected, got ${through} of ${items.length}: ${result.data?.data.resultData.error?.message ?? JSON.stringify(items.find((item) => item.outcome !== outcome) ?? '').slice(0, 200)}`,
			);
			problems.push(...runProblems);
			const task = result.data?.data.resultData.runData.Register?.[0];
			console.log(
				`  ${runProblems.length === 0 ? 'ok  ' : 'FAIL'} import at 2 requests a second, run ${run}: ${through} of ${rows} items ${outcome}, ${sandbox.requests.length - requestsBefore - refused} requests taken and ${refused} refused, ${((task?.executionTime ?? 0) / 1000).toFixed(1)} s`,
			);
		}
		const buyers = [...sandbox.state.registrations.values()].filter((registration) =>
			registration.customerEmail?.startsWith('buyer'),
		);
		problems.push(
			...expectThat(buyers.length === rows, `${rows} registrations expected, the service holds ${buyers.length}`),
		);
	} finally {
		sandbox.limitRate(undefined);
	}
	return problems;
}

/** Within this, the node's error quotes at most ECHO_LIMIT characters of the answer beside its own words. */
const FLOODED_MESSAGE_BOUND = ECHO_LIMIT + 400;

/**
 * Delete against a service that answers HTTP 500 with a 10 MB JSON error, beside the HTTP Request node doing the same
 * call: the node's error must quote a bounded part of it. Prints what each execution holds (its run data as n8n
 * prints and stores it) and n8n's peak memory.
 */
export async function checkFloodedAnswer(n8n: RealN8n): Promise<string[]> {
	const service = await startMisbehavingServer('flood');
	try {
		const runs = await runBesideHttpRequest(
			n8n,
			service,
			'flood',
			{ resource: 'registration', operation: 'delete', registrationId: 'R000001' },
			{ method: 'DELETE', url: `${service.url}/api/registrations/R000001` },
			120_000,
		);
		const describe = (result: ExecutionResult) => {
			const error = result.data?.data.resultData.error;
			const messageLength =
				(error?.message?.length ?? 0) + ((error as { description?: string })?.description?.length ?? 0);
			const kb = (Buffer.byteLength(JSON.stringify(result.data ?? null)) / 1024).toFixed(0);
			return {
				messageLength,
				text: `execution data ${kb} KB, error message and description ${messageLength.toLocaleString('en-US')} characters, n8n's peak RSS ${result.output.peakRssMb} MB`,
			};
		};
		const ours = describe(runs.ours);
		const http = describe(runs.http);
		const problems = expectThat(
			ours.messageLength > 0 && ours.messageLength < FLOODED_MESSAGE_BOUND,
			`the error should quote at most ${ECHO_LIMIT} characters of the answer, got ${ours.messageLength} characters`,
		);
		console.log(
			`  ${problems.length === 0 ? 'ok  ' : 'FAIL'} flooded answer: Delete against a service answering 500 with a 10 MB JSON error: ${ours.text}`,
		);
		console.log(`       the HTTP Request node, same call: ${http.text}`);
		return problems;
	} finally {
		await service.stop();
	}
}
