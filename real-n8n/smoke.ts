import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { startMisbehavingServer } from '../harness/misbehavingServer';
import { ECHO_LIMIT } from '../nodes/ProductRegistration/transport/answerText';
import { seedSampleData } from '../sandbox/sampleData';
import { Sandbox } from '../sandbox/service';
import type { StoredRegistration } from '../sandbox/state';
import { chainedWorkflow, SHEET_ROWS, sheetImportWorkflow } from './chainedWorkflow';
import { checkAgentTool } from './agent';
import { checkDialects, checkDurableScheduler } from './dialects';
import type { Example } from './examples';
import { CREDENTIAL, importExamples } from './examples';
import type { ExecutionResult, RealN8n } from './instance';
import type { ReceivedMail } from './smtpServer';
import { startSmtpServer } from './smtpServer';
import { N8N_LINES, nodeOutput, packPackage, root, waitFor } from './instance';
import { checkMcpExample, MCP_EXAMPLE } from './mcp';

/**
 * `npm run test:n8n`: every workflow of examples/ imported into a real n8n (each line of N8N_LINES, the package
 * installed as n8n's community-package installer does) and run against the sandbox as a user runs it: those that
 * start with a Manual Trigger by `n8n execute`, the others by calling their trigger over HTTP on a started n8n —
 * the registration webhook, the receipt form, the MCP example by the official MCP client (mcp.ts). Each run's items are
 * checked. The node as a tool of n8n's AI Agent (agent.ts). Then the Poll Trigger and If Already Registered against
 * readings of the API page other than the real service's, and on n8n 2.x the Poll Trigger under its durable scheduler
 * (dialects.ts). Not part of CI (it needs a real n8n).
 */

type Items = Array<Record<string, unknown>>;

interface Check {
	/**
	 * How the example is started: by `n8n execute`, its webhook, or its form — `form` posts the fields and the file,
	 * `formPage` does what a browser does next and reads the form's ending page — or by its poll trigger, active at
	 * every minute while customers register (checkPolling).
	 */
	start: 'execute' | 'webhook' | 'form' | 'formPage' | 'poll';
	/** How often it is run, one run after the other (a scheduled import runs again, a form is sent twice). */
	runs?: number;
	/**
	 * Problems with what the last node gave in run `run` (and what the service now holds, the page the form ended on,
	 * and what any node of the run gave); none means it passed.
	 */
	check(items: Items, sandbox: Sandbox, run: number, page: string, itemsOf: (node: string) => Items): string[];
}

/** The two outlines of the app's webhook, sent one a run: as its documentation shows it, and as a live shop sent it. */
const WEBHOOK_SAMPLES = ['sample-registration-webhook.json', 'sample-registration-webhook-wrapped.json'];

const expectThat = (condition: boolean, problem: string) => (condition ? [] : [problem]);

/** The poll phase: the registrations customers made while the poll examples were active, and the e-mails sent. */
const polling: { registered: StoredRegistration[]; mails: ReceivedMail[] } = { registered: [], mails: [] };

/** Problems with the registrations a poll example's trigger gave, over all its executions: each registered one once. */
function eachRegisteredOnce(triggered: Items): string[] {
	const given = triggered.map((item) => item.id as string);
	const expected = polling.registered.map((registration) => registration.id);
	const missing = expected.filter((id) => !given.includes(id));
	const twice = given.filter((id, index) => given.indexOf(id) !== index);
	const unexpected = given.filter((id) => !expected.includes(id));
	return expectThat(
		missing.length === 0 && twice.length === 0 && unexpected.length === 0,
		`each of the ${expected.length} registrations once expected; missing ${missing.slice(0, 5).join()}${missing.length > 5 ? '...' : ''}, twice ${twice.slice(0, 5).join()}, not registered then ${unexpected.slice(0, 5).join()}`,
	);
}

const CHECKS: Record<string, Check> = {
	'confirm-new-registrations.json': {
		start: 'poll',
		check: (items, sandbox, _run, _page, itemsOf) => [
			...eachRegisteredOnce(itemsOf('New registration')),
			...expectThat(
				items.length === polling.registered.length && items.every((item) => item.status === 'Processing'),
				`each registration's status changed to Processing expected, got ${items.length} item(s): ${JSON.stringify(items.find((item) => item.status !== 'Processing') ?? '').slice(0, 200)}`,
			),
			...expectThat(
				polling.registered.every((registration) => {
					const history = sandbox.state.registrations.get(registration.id)?.statusHistory ?? [];
					return history.length === 1 && history[0].status === 'Processing';
				}),
				'the service should hold exactly one status change, Processing, for each registration',
			),
		],
	},
	'email-new-registrations.json': {
		start: 'poll',
		check: (_items, _sandbox, _run, _page, itemsOf) => [
			...eachRegisteredOnce(itemsOf('New registration')),
			...expectThat(
				polling.registered.every(
					(registration) =>
						polling.mails.filter(
							(mail) => mail.to.includes(registration.customerEmail!) && mail.text.includes(registration.id),
						).length === 1,
				),
				`one e-mail with its registration's ID to each customer expected; ${polling.mails.length} e-mails received for ${polling.registered.length} registrations`,
			),
		],
	},
	'import-serial-numbers.json': {
		start: 'execute',
		check: (items, sandbox) => [
			...expectThat(items.length === 3, `3 items expected, got ${items.length}`),
			...['WH-2024-9001', 'WH-2024-9002', 'WH-2024-9003'].flatMap((serial) =>
				expectThat(sandbox.state.serialCreations.get(serial) === 1, `${serial} should be created once`),
			),
		],
	},
	'register-products-from-spreadsheet.json': {
		start: 'execute',
		runs: 2,
		check: (items, _sandbox, run) => [
			...expectThat(items.length === 2, `2 items expected, got ${items.length}`),
			...expectThat(
				items.every((item) => item.outcome === (run === 1 ? 'created' : 'skipped')) &&
					items.map((item) => item.productName).join() === 'Kettle K1,Toaster T2' &&
					items[1]?.purchaseDate === '2024-08-02',
				`run ${run}: registrations ${run === 1 ? 'created' : 'skipped'} expected, got ${JSON.stringify(items).slice(0, 300)}`,
			),
		],
	},
	'serial-number-per-order.json': {
		start: 'execute',
		check: (items) => {
			const serials = items.map((item) => (item.serialNumbers as string[] | undefined)?.[0]);
			return [
				...expectThat(items.length === 2, `2 items expected, got ${items.length}`),
				...expectThat(
					serials.every(Boolean) && serials[0] !== serials[1],
					`two different serials expected, got ${serials.join()}`,
				),
			];
		},
	},
	'react-to-new-registration.json': {
		start: 'webhook',
		runs: WEBHOOK_SAMPLES.length,
		check: (items, _sandbox, run, _page, itemsOf) => {
			const [product] = itemsOf('Product Registration Trigger');
			const fields = (product?.fields ?? {}) as Record<string, unknown>;
			const expected =
				run === 1
					? { field: 'Upload Image (Receipt)', formSlug: undefined }
					: { field: 'InvoiceUpload', formSlug: 'extended-warranty' };
			return [
				...expectThat(
					items.length === 1 && items[0].found === true && items[0].serialNumber === 'KT-2024-0001',
					`the serial of the webhook looked up expected, got ${JSON.stringify(items)}`,
				),
				...expectThat(
					(product?.product as { title?: string } | undefined)?.title === 'Kettle K1' &&
						typeof fields[expected.field] === 'string' &&
						(product?.customer as { email?: string } | undefined)?.email === 'lea.noor@example.com' &&
						product?.formSlug === expected.formSlug,
					`${WEBHOOK_SAMPLES[run - 1]}: one item with product, fields["${expected.field}"], customer and formSlug ${expected.formSlug} expected, got ${JSON.stringify(product).slice(0, 400)}`,
				),
			];
		},
	},
	'upload-receipt-and-attach.json': {
		start: 'form',
		check: (items, sandbox) => {
			const history = (items[0]?.statusHistory as Array<{ status: string; assets?: Array<{ url: string }> }>) ?? [];
			const last = history[history.length - 1];
			return [
				...expectThat(
					items.length === 1 && items[0].id === 'R000001' && items[0].status === 'receipt received',
					`the status change of R000001 (Ann's Kettle K1) expected, got ${JSON.stringify(items).slice(0, 300)}`,
				),
				...expectThat(
					last?.assets?.[0]?.url.startsWith(sandbox.storage.url) === true,
					`the uploaded receipt attached expected, got ${JSON.stringify(last)}`,
				),
			];
		},
	},
	'register-from-form.json': {
		start: 'formPage',
		runs: 2,
		check: (_items, sandbox, run, page) => {
			const registrations = [...sandbox.state.registrations.values()].filter(
				(registration) => registration.customerEmail === FORM_EMAIL,
			);
			const receiptUrl = registrations[0]?.fields.receipt;
			return [
				...expectThat(
					registrations.length === 1 && registrations[0].productName === 'Blender B3',
					`run ${run}: one registration of Blender B3 for ${FORM_EMAIL} expected, got ${JSON.stringify(registrations).slice(0, 300)}`,
				),
				...expectThat(
					typeof receiptUrl === 'string' && receiptUrl.startsWith(sandbox.storage.url),
					`run ${run}: the receipt URL in the form field "receipt" expected, got ${JSON.stringify(receiptUrl)}`,
				),
				...expectThat(
					sandbox.requestsTo('GET', '/api/upload_file').length === 1 &&
						sandbox.storage.requests.filter((request) => request.method === 'PUT').length === 1,
					`run ${run}: one upload in all expected, got ${sandbox.requestsTo('GET', '/api/upload_file').length}`,
				),
				...expectThat(
					page.includes('Your Blender B3 is registered'),
					`run ${run}: the ending page naming the product expected, got ${JSON.stringify(page.slice(0, 300))}`,
				),
			];
		},
	},
};

const RECEIPT = Buffer.from('%PDF-1.4\nReceipt for order 1001: Kettle K1, $49.00\n%%EOF\n');
/** A photo of a receipt as customers send it: 1 MB. */
const LARGE_RECEIPT = Buffer.alloc(1024 * 1024, 'receipt of order 2001, Blender B3, $89.00; ');
const FORM_EMAIL = 'dee.ross@example.com';

/** The fields of each form example, in the order of its form (n8n names them field-0, field-1, ...), then its file. */
const FORM_FIELDS: Record<string, { fields: string[]; file: { bytes: Buffer; name: string; type: string } }> = {
	'upload-receipt-and-attach.json': {
		fields: ['ann.lee@example.com', 'Kettle K1'],
		file: { bytes: RECEIPT, name: 'receipt-1001.pdf', type: 'application/pdf' },
	},
	'register-from-form.json': {
		fields: ['Dee Ross', FORM_EMAIL, 'Blender B3', '', '2024-09-14'],
		file: { bytes: LARGE_RECEIPT, name: 'receipt-2001.jpg', type: 'image/jpeg' },
	},
};

/** Sends a request until the workflow's webhook is registered: 2.x registers them a little after it reports ready. */
async function untilRegistered(url: string, init: RequestInit = {}): Promise<Response> {
	return await waitFor(`the webhook ${url}`, async () => {
		const response = await fetch(url, init);
		return response.status === 404 ? undefined : response;
	});
}

/**
 * Calls the trigger of a started, active example the way its real caller would, and returns the page a form ended on:
 * a browser loads the form, posts it (multipart), gets the address of the form's next page, waits until the workflow
 * reaches it, and shows it.
 */
async function callTrigger(n8n: RealN8n, example: Example, start: Check['start'], run: number): Promise<string> {
	const trigger = example.workflow.nodes.find((node) => node.webhookId)!;
	if (start === 'webhook') {
		const payload = readFileSync(join(root, 'examples', WEBHOOK_SAMPLES[run - 1]));
		const url = `${n8n.baseUrl}/webhook/${trigger.webhookId}/product-registration`;
		await untilRegistered(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
		return '';
	}
	const { fields, file } = FORM_FIELDS[example.file];
	const url = `${n8n.baseUrl}/form/${(trigger.parameters.path as string | undefined) || trigger.webhookId}`;
	await untilRegistered(url);
	const form = new FormData();
	fields.forEach((value, index) => form.append(`field-${index}`, value));
	form.append(`field-${fields.length}`, new Blob([file.bytes], { type: file.type }), file.name);
	const posted = await fetch(url, { method: 'POST', body: form });
	if (start === 'form') return await posted.text();
	const { formWaitingUrl } = (await posted.json()) as { formWaitingUrl: string };
	// The next page's address, on the address n8n listens on; n8n 2.x signs it with a query the page keeps.
	const nextPage = new URL(formWaitingUrl);
	nextPage.host = new URL(n8n.baseUrl).host;
	const status = new URL(nextPage);
	status.pathname += '/n8n-execution-status';
	// The form's own script asks this until the workflow waits at the ending page.
	await waitFor('the form ending page', async () => {
		const text = (await (await fetch(status)).text()).trim();
		return ['form-waiting', 'success', 'error'].includes(text) ? text : undefined;
	});
	return await (await fetch(nextPage)).text();
}

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
async function checkDeadline(n8n: RealN8n): Promise<string[]> {
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
async function checkPagedList(n8n: RealN8n, sandbox: Sandbox): Promise<string[]> {
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
async function checkImportAtServicePace(n8n: RealN8n, sandbox: Sandbox): Promise<string[]> {
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
async function checkFloodedAnswer(n8n: RealN8n): Promise<string[]> {
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

/** What the trigger's items hold, in short: each product's title, its fields' names and the form's slug. */
function triggerSummary(items: Items): string {
	return JSON.stringify(
		items.map((item) => ({
			product: (item.product as { title?: string } | undefined)?.title,
			fields: Object.keys((item.fields ?? {}) as object),
			formSlug: item.formSlug,
		})),
	);
}

/** The words of an HTML page's title and headings and paragraphs, for the report. */
function pageText(html: string): string {
	return [...html.matchAll(/<(h1|h2|p)[^>]*>([^<]*)</g)]
		.map((match) => match[2].trim())
		.filter(Boolean)
		.join(' ')
		.slice(0, 200);
}

/**
 * The poll examples in a started n8n, active at every minute: customers register in three rounds — one, then 250 at
 * once, then one while n8n is stopped — and after each round the examples' executions must hold every registration
 * so far. Then each example's check runs over all its executions.
 */
async function checkPolling(
	n8n: RealN8n,
	sandbox: Sandbox,
	examples: Example[],
	report: (file: string, problems: string[], detail: string) => void,
): Promise<void> {
	const polled = examples.filter(({ file }) => CHECKS[file]?.start === 'poll');
	const firstPolls = () =>
		sandbox.requestsTo('GET', '/api/registrations').filter((request) => request.query.limit === '10').length;
	await n8n.stop();
	for (const example of polled) await n8n.activate(example.workflow.id);
	const before = firstPolls();
	await n8n.start();
	// Each activation starts from now with one small request: registrations after it are new.
	await waitFor('the activations of the poll examples', () =>
		firstPolls() >= before + polled.length ? true : undefined,
	);
	const cookie = await n8n.ownerSession();
	let customer = 0;
	const register = (count: number) =>
		sandbox.state.createRegistrations(
			Array.from({ length: count }, () => ({
				productName: 'Kettle K1',
				customerEmail: `poll-customer${(customer += 1)}@example.com`,
				customerName: `Poll Customer ${customer}`,
				purchaseDate: '2024-11-01',
			})),
		).registrations;
	const triggeredOf = async (example: Example) =>
		(await n8n.executionsOf(example.workflow.id, cookie))
			.filter((execution) => execution.status !== 'running' && execution.status !== 'new')
			.flatMap((execution) => nodeOutput({ data: execution.data }, 'New registration'));
	for (const [round, count, restart] of [
		[1, 1, false],
		[2, 250, false],
		[3, 1, true],
	] as const) {
		const started = Date.now();
		if (restart) await n8n.stop();
		polling.registered.push(...register(count));
		if (restart) await n8n.start();
		for (const example of polled) {
			await waitFor(
				`round ${round} in the executions of ${example.file}`,
				async () => ((await triggeredOf(example)).length >= polling.registered.length ? true : undefined),
				180_000,
			);
		}
		console.log(
			`       round ${round}: ${count} registration(s)${restart ? ' while n8n was stopped' : ''}, in the executions of both after ${Math.round((Date.now() - started) / 1000)} s`,
		);
	}
	for (const example of polled) {
		const executions = (await n8n.executionsOf(example.workflow.id, cookie)).filter(
			(execution) => execution.status !== 'running' && execution.status !== 'new',
		);
		const itemsOf = (node: string) => executions.flatMap((execution) => nodeOutput({ data: execution.data }, node));
		const failed = executions.filter((execution) => execution.status !== 'success');
		const problems = [
			...expectThat(failed.length === 0, `${failed.length} execution(s) did not succeed`),
			...CHECKS[example.file].check(itemsOf(example.lastNode), sandbox, 1, '', itemsOf),
		];
		report(
			example.file,
			problems,
			`active at every minute, ${polling.registered.length} registrations in 3 rounds: ${executions.length} executions, ${itemsOf('New registration').length} registrations from the trigger, ${itemsOf(example.lastNode).length} item(s) from "${example.lastNode}"`,
		);
	}
}

async function smokeOneLine(version: string, tarball: string): Promise<boolean> {
	console.log(`\nn8n ${version}`);
	const sandbox = await Sandbox.start();
	seedSampleData(sandbox.state);
	const smtp = await startSmtpServer();
	polling.registered = [];
	polling.mails = smtp.mails;
	const { n8n, examples } = await importExamples(version, tarball, sandbox, smtp.port);
	let passed = true;
	const report = (file: string, problems: string[], detail: string) => {
		passed &&= problems.length === 0;
		console.log(
			`  ${problems.length === 0 ? 'ok  ' : 'FAIL'} ${file}: ${detail}${problems.map((problem) => `\n       ${problem}`).join('')}`,
		);
	};
	try {
		for (const example of examples.filter(({ file }) => CHECKS[file]?.start === 'execute')) {
			const { runs = 1, check } = CHECKS[example.file];
			for (let run = 1; run <= runs; run++) {
				const result = await n8n.execute(example.workflow.id, { timeoutMs: 120_000 });
				const items = nodeOutput(result.data, example.lastNode);
				const error =
					result.data?.data.resultData.error?.message ?? (result.data ? undefined : result.output.stdout.slice(-500));
				const problems = error
					? [`the run failed: ${error}`]
					: check(items, sandbox, run, '', (node) => nodeOutput(result.data, node));
				const held = `the service holds ${sandbox.state.registrations.size} registrations`;
				report(
					example.file,
					problems,
					`n8n execute${runs > 1 ? ` run ${run}` : ''}, ${items.length} item(s) from "${example.lastNode}"${runs > 1 ? `; ${held}` : ''}`,
				);
			}
		}

		passed = (await checkPagedList(n8n, sandbox)).length === 0 && passed;
		passed = (await checkImportAtServicePace(n8n, sandbox)).length === 0 && passed;
		passed = (await checkDeadline(n8n)).length === 0 && passed;
		passed = (await checkFloodedAnswer(n8n)).length === 0 && passed;
		await checkAgentTool(n8n, sandbox, report);

		const triggered = examples.filter(({ file }) => CHECKS[file] && !['execute', 'poll'].includes(CHECKS[file].start));
		const mcpExample = examples.find(({ file }) => file === MCP_EXAMPLE)!;
		for (const example of [...triggered, mcpExample]) await n8n.activate(example.workflow.id);
		await n8n.start();
		const cookie = await n8n.ownerSession();
		for (const example of triggered) {
			const { start, runs = 1, check } = CHECKS[example.file];
			for (let run = 1; run <= runs; run++) {
				const page = await callTrigger(n8n, example, start, run);
				const executions = await waitFor(`execution ${run} of ${example.file}`, async () => {
					// n8n 1.123 may list an execution as ended a moment before its run data is saved.
					const finished = (await n8n.executionsOf(example.workflow.id, cookie)).filter(
						(entry) =>
							entry.status !== 'running' &&
							entry.status !== 'new' &&
							Object.keys(entry.data.resultData.runData).length > 0,
					);
					return finished.length >= run ? finished : undefined;
				});
				const [execution] = executions;
				const items = nodeOutput({ data: execution.data }, example.lastNode);
				// A form's ending page is shown by an execution that waits at it.
				const ended = execution.status === 'success' || (start === 'formPage' && execution.status === 'waiting');
				const problems = ended
					? check(items, sandbox, run, page, (node) => nodeOutput({ data: execution.data }, node))
					: [`the execution ended ${execution.status}: ${execution.data.resultData.error?.message}`];
				report(
					example.file,
					problems,
					`${start === 'webhook' ? `webhook call (${WEBHOOK_SAMPLES[run - 1]})` : 'form call'} on a started n8n${runs > 1 ? `, run ${run}` : ''}, ${items.length} item(s) from "${example.lastNode}"${page.includes('<') ? `; the form ended on: ${JSON.stringify(pageText(page))}` : ''}${start === 'webhook' ? `; the trigger gave ${triggerSummary(nodeOutput({ data: execution.data }, 'Product Registration Trigger'))}` : ''}`,
				);
			}
		}
		await checkMcpExample(n8n, mcpExample, sandbox, report);
		await checkPolling(n8n, sandbox, examples, report);
	} finally {
		await n8n.stop();
		await sandbox.stop();
		await smtp.stop();
		n8n.cleanUp();
	}
	const reportDialect = (problems: string[], line: string) => report('dialects', problems, line);
	await checkDialects(version, tarball, reportDialect);
	if (!version.startsWith('1.')) await checkDurableScheduler(version, tarball, reportDialect);
	const unchecked = readdirSync(join(root, 'examples')).filter(
		(file) => file.endsWith('.json') && !file.startsWith('sample-') && !CHECKS[file] && file !== MCP_EXAMPLE,
	);
	if (unchecked.length > 0) {
		console.log(`  FAIL examples without a check: ${unchecked.join(', ')}`);
		return false;
	}
	return passed;
}

async function main(): Promise<void> {
	const tarball = await packPackage();
	let passed = true;
	for (const version of N8N_LINES) passed = (await smokeOneLine(version, tarball)) && passed;
	console.log(passed ? '\nevery example passed in a real n8n' : '\nsome examples FAILED');
	process.exitCode = passed ? 0 : 1;
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
