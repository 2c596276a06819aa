import { DEFAULT_BATCH_CONCURRENCY, DEFAULT_CONCURRENCY } from '../../nodes/ProductRegistration/input/runOptions';
import { startSandbox } from '../cases.cts';
import type { SandboxStats } from '../sandboxProcess.cts';
import { writeDocsSection, writesDocs } from '../../scripts/docsSection.cts';
import type { ChainedNode } from '../../real-n8n/chainedWorkflow.cts';
import { chainedWorkflow, itemsNode } from '../../real-n8n/chainedWorkflow.cts';
import { CREDENTIAL } from '../../real-n8n/examples.cts';
import type { ExecutionResult } from '../../real-n8n/instance.cts';
import { N8N_LINES, packPackage, RealN8n } from '../../real-n8n/instance.cts';

/**
 * `npm run bench:pace [-- --write-docs] [-- --forms 2000,200000] [-- --rates 2,10]`: a 1,000-row sheet of 200
 * customers, created, then imported again with If Already Registered: Skip, into a form that holds 2,000 or 200,000
 * registrations, against a service that allows 2 or 10 requests a second (bursts of one second's worth; 429 beyond,
 * with or without Retry-After) — inside a real n8n of each line, beside the HTTP Request node set up as an expert
 * would: the same calls paced to the known rate (Batching, the pagination's interval), Retry On Fail, the form listed
 * with pagination or each customer looked up (whichever is fewer requests), a Code node to keep the new rows and cut
 * them into batches of 100. The figures are the requests the service took and refused, n8n's own run time of the
 * nodes against the floor (requests taken ÷ rate), failed items and registrations held twice; the fewest requests
 * possible are shown beside the verdict. With --write-docs (every case run) the tables replace those in
 * docs/measured/bench-pace.md. Not part of CI.
 */

const LATENCY_MS = 20;
/**
 * The targets: nothing failed or made twice; refused at most 5% of the requests taken, and the run's Concurrency (what
 * goes out at once before the first refusal: the creates' batches, the import's lookups); within 1.10× the floor.
 */
const MOST_REFUSED_OF_TAKEN = 0.05;
const CONCURRENCY_OF_RUN = { create: DEFAULT_BATCH_CONCURRENCY, 'import again with Skip': DEFAULT_CONCURRENCY };
const MOST_OF_FLOOR = 1.1;
const SHEET_ROWS = 1000;
const CUSTOMERS = 200;
const FORM = 'warranty-2024';
const UNDER_TEST = 'Register';

/** The sheet: 5 products for each of 200 customers, a customer's rows together, all for the form. */
const SHEET = `return Array.from({ length: ${SHEET_ROWS} }, (_, i) => ({ json: { Product: 'Kettle K' + (i % 5), Email: 'customer' + Math.floor(i / ${SHEET_ROWS / CUSTOMERS}) + '@example.com', Form: '${FORM}' } }));`;

interface Service {
	baseUrl: string;
	token: string;
}

interface Case {
	formSize: number;
	rate: number;
	retryAfter: boolean;
}

/** One import, one way: what the service took and refused, how long the nodes ran, what failed. */
interface Run {
	requests: number;
	refused: number;
	ms: number;
	failedItems: number;
	error?: string;
}

interface Row extends Case {
	line: string;
	run: 'create' | 'import again with Skip';
	node: Run;
	http: Run;
	duplicates: { node: number; http: number };
	minimumRequests: number;
	met: boolean;
}

/** A workflow of the sheet's rows, then `nodes`. */
const workflow = (id: string, nodes: ChainedNode[]) => chainedWorkflow(id, [itemsNode('Sheet', SHEET), ...nodes]);

/** This node: Create with Map Automatically, as the sheet's columns are named. */
function ourImport(ifExists: 'create' | 'skip'): ChainedNode {
	return {
		name: UNDER_TEST,
		type: 'n8n-nodes-product-registration.productRegistration',
		typeVersion: 1,
		onError: 'continueRegularOutput',
		parameters: { resource: 'registration', operation: 'create', dataMode: 'autoMapInputData', options: { ifExists } },
		credentials: { [CREDENTIAL.type]: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
	};
}

/** The HTTP Request node as an expert sets it up: the token in a header, Retry On Fail, its errors as items. */
function httpRequest(name: string, service: Service, parameters: Record<string, unknown>): ChainedNode {
	return {
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		retryOnFail: true,
		maxTries: 5,
		waitBetweenTries: 1000,
		onError: 'continueRegularOutput',
		parameters: {
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${service.token}` }] },
			...parameters,
		},
	};
}

/** Keeps the sheet's rows the service does not list yet (by e-mail and product) and cuts them into batches of 100. */
const plan = (listedFrom: string) =>
	itemsNode(
		'Plan',
		`const listed = $('${listedFrom}').all().flatMap((page) => page.json.data ?? []);
const held = new Set(listed.map((r) => String(r.customerEmail).toLowerCase() + '|' + String(r.productName).toLowerCase()));
const rows = $('Sheet').all().map((item) => item.json).filter((row) => !held.has(row.Email.toLowerCase() + '|' + row.Product.toLowerCase()));
const batches = [];
for (let i = 0; i < rows.length; i += 100) batches.push({ json: { registrations: rows.slice(i, i + 100).map((row) => ({ productName: row.Product, customerEmail: row.Email, type: row.Form })) } });
return batches;`,
	);

function httpCreate(service: Service, rate: number): ChainedNode {
	return httpRequest('Create', service, {
		method: 'POST',
		url: `${service.baseUrl}/api/registrations`,
		sendBody: true,
		specifyBody: 'json',
		jsonBody: '={{ JSON.stringify({ registrations: $json.registrations }) }}',
		options: { batching: { batch: { batchSize: 1, batchInterval: Math.ceil(1000 / rate) } } },
	});
}

/** The expert's two workflows for a case: the first import, and the import again with Skip. */
function httpWorkflows(service: Service, { formSize, rate }: Case, ids: [string, string]) {
	const interval = Math.ceil(1000 / rate);
	const batches = itemsNode(
		'Batches',
		`const rows = $input.all().map((item) => item.json);
const batches = [];
for (let i = 0; i < rows.length; i += 100) batches.push({ json: { registrations: rows.slice(i, i + 100).map((row) => ({ productName: row.Product, customerEmail: row.Email, type: row.Form })) } });
return batches;`,
	);
	const pagesOfForm = Math.ceil((formSize + SHEET_ROWS) / 100);
	const find: ChainedNode[] =
		pagesOfForm <= CUSTOMERS
			? [
					{
						...httpRequest('List the form', service, {
							method: 'GET',
							url: `${service.baseUrl}/api/registrations`,
							sendQuery: true,
							queryParameters: {
								parameters: [
									{ name: 'formSlug', value: FORM },
									{ name: 'limit', value: '100' },
								],
							},
							options: {
								pagination: {
									pagination: {
										paginationMode: 'updateAParameterInEachRequest',
										parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }] },
										paginationCompleteWhen: 'other',
										completeExpression: '={{ $response.body.data.length < 100 }}',
										requestInterval: interval,
									},
								},
							},
						}),
						executeOnce: true,
					},
					plan('List the form'),
				]
			: [
					itemsNode(
						'Customers',
						`return [...new Set($input.all().map((item) => item.json.Email))].map((email) => ({ json: { email } }));`,
					),
					httpRequest('Look up', service, {
						method: 'GET',
						url: `${service.baseUrl}/api/registrations`,
						sendQuery: true,
						queryParameters: {
							parameters: [
								{ name: 'email', value: '={{ $json.email }}' },
								{ name: 'formSlug', value: FORM },
								{ name: 'limit', value: '100' },
							],
						},
						options: { batching: { batch: { batchSize: 1, batchInterval: interval } } },
					}),
					plan('Look up'),
				];
	return [
		workflow(ids[0], [batches, httpCreate(service, rate)]),
		workflow(ids[1], [...find, httpCreate(service, rate)]),
	];
}

/** What a run cost, from the service's counts before and after and n8n's run data. */
function runOf(result: ExecutionResult, before: SandboxStats, after: SandboxStats, nodes: string[]): Run {
	const runData = result.data?.data.resultData.runData ?? {};
	const ran = nodes.map((name) => runData[name]?.[0]).filter((task) => task !== undefined);
	const items = ran.flatMap((task) => task.data?.main?.[0] ?? []);
	return {
		requests: after.requests - before.requests - (after.refusedForRate - before.refusedForRate),
		refused: after.refusedForRate - before.refusedForRate,
		ms: ran.reduce((sum, task) => sum + task.executionTime, 0),
		failedItems: items.filter((item) => item.json.error !== undefined).length,
		error: result.data ? result.data.data.resultData.error?.message : result.output.stdout.slice(-300),
	};
}

/**
 * The fewest requests each run can make: the creates, ceil(1,000 / 100); the import again, the fewer of the form's
 * pages and a first page plus one lookup per customer, with nothing to create.
 */
function minimumRequests(formSize: number, run: Row['run']): number {
	if (run === 'create') return SHEET_ROWS / 100;
	return Math.min(Math.ceil((formSize + SHEET_ROWS) / 100), 1 + CUSTOMERS);
}

async function benchLine(version: string, tarball: string, cases: Case[]): Promise<Row[]> {
	const sandbox = await startSandbox({ latencyMs: LATENCY_MS });
	const service = { baseUrl: sandbox.baseUrl, token: sandbox.token };
	const n8n = await RealN8n.create(version);
	const rows: Row[] = [];
	try {
		await n8n.installPackage(tarball);
		await n8n.importCredential({ ...CREDENTIAL, data: { baseUrl: service.baseUrl, accessToken: service.token } });
		await n8n.importWorkflow(workflow('paceCreate', [ourImport('create')]));
		await n8n.importWorkflow(workflow('paceSkip', [ourImport('skip')]));
		for (const [index, bench] of cases.entries()) {
			const httpIds: [string, string] = [`paceHttp${index}a`, `paceHttp${index}b`];
			for (const flow of httpWorkflows(service, bench, httpIds)) await n8n.importWorkflow(flow);
			const ways = [
				{ way: 'node' as const, ids: ['paceCreate', 'paceSkip'], nodes: [UNDER_TEST] },
				{
					way: 'http' as const,
					ids: httpIds,
					nodes: ['Batches', 'List the form', 'Customers', 'Look up', 'Plan', 'Create'],
				},
			];
			const runs: Record<'node' | 'http', Run[]> = { node: [], http: [] };
			const duplicates = { node: 0, http: 0 };
			for (const { way, ids, nodes } of ways) {
				await sandbox.setUp({
					reset: true,
					latencyMs: LATENCY_MS,
					form: { slug: FORM, registrations: bench.formSize },
					rate: { perSecond: bench.rate, burst: bench.rate, retryAfter: bench.retryAfter },
				});
				for (const id of ids) {
					const before = await sandbox.stats();
					const result = await n8n.execute(id, { timeoutMs: 900_000 });
					runs[way].push(runOf(result, before, await sandbox.stats(), nodes));
				}
				duplicates[way] = (await sandbox.stats()).duplicates;
			}
			for (const [runIndex, run] of (['create', 'import again with Skip'] as const).entries()) {
				const node = runs.node[runIndex];
				const minimum = minimumRequests(bench.formSize, run);
				const floorMs = (node.requests / bench.rate) * 1000;
				const row: Row = {
					line: version,
					...bench,
					run,
					node,
					http: runs.http[runIndex],
					duplicates,
					minimumRequests: minimum,
					met:
						!node.error &&
						node.failedItems === 0 &&
						duplicates.node === 0 &&
						node.refused <= MOST_REFUSED_OF_TAKEN * node.requests + CONCURRENCY_OF_RUN[run] &&
						node.ms <= MOST_OF_FLOOR * floorMs,
				};
				rows.push(row);
				console.error(`  ${version} ${describe(row)}`);
			}
		}
	} finally {
		await n8n.stop();
		sandbox.stop();
		n8n.cleanUp();
	}
	return rows;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function figures(run: Run, rate: number): string {
	const floorMs = (run.requests / rate) * 1000;
	return `${run.requests} (${run.refused} refused), ${seconds(run.ms)}, ${(run.ms / floorMs).toFixed(2)}× the floor${run.error ? `, **failed: ${run.error.slice(0, 80)}**` : ''}`;
}

function describe(row: Row): string {
	return `${row.formSize.toLocaleString('en-US')} form, ${row.rate}/s, ${row.retryAfter ? 'Retry-After' : 'bare 429'}, ${row.run}: node ${figures(row.node, row.rate)}; HTTP Request ${figures(row.http, row.rate)}; failed ${row.node.failedItems}/${row.http.failedItems}, duplicates ${row.duplicates.node}/${row.duplicates.http} → ${row.met ? 'met' : 'MISSED'}`;
}

function table(rows: Row[]): string {
	const lines = [
		`| form holds | rate | 429 | run | this node: requests (refused), time, × floor | HTTP Request node: the same | failed items (node / HTTP) | registrations held twice (node / HTTP) | target: 0 failed, 0 twice, refused ≤ ${MOST_REFUSED_OF_TAKEN * 100}% of those taken + Concurrency (${CONCURRENCY_OF_RUN.create} for the create, ${CONCURRENCY_OF_RUN['import again with Skip']} for the import), ≤ ${MOST_OF_FLOOR}× floor |`,
		'|---|---|---|---|---|---|---|---|---|',
	];
	for (const row of rows) {
		lines.push(
			`| ${row.formSize.toLocaleString('en-US')} | ${row.rate}/s | ${row.retryAfter ? 'Retry-After' : 'bare'} | ${row.run} | ${figures(row.node, row.rate)} | ${figures(row.http, row.rate)} | ${row.node.failedItems} / ${row.http.failedItems} | ${row.duplicates.node} / ${row.duplicates.http} | ${row.met ? 'met' : '**missed**'} (the fewest requests possible: ${row.minimumRequests}) |`,
		);
	}
	return lines.join('\n');
}

function listArgument(name: string, fallback: number[]): number[] {
	const index = process.argv.indexOf(name);
	return index === -1 ? fallback : process.argv[index + 1].split(',').map(Number);
}

async function main(): Promise<void> {
	const forms = listArgument('--forms', [2000, 200_000]);
	const rates = listArgument('--rates', [2, 10]);
	const cases = forms.flatMap((formSize) =>
		rates.flatMap((rate) => [true, false].map((retryAfter) => ({ formSize, rate, retryAfter }))),
	);
	const tarball = await packPackage();
	const everyCase = forms.length === 2 && rates.length === 2;
	for (const version of N8N_LINES) {
		const rows = await benchLine(version, tarball, cases);
		const markdown = `n8n ${version}, ${LATENCY_MS} ms latency, bursts of one second's worth\n\n${table(rows)}`;
		console.log(`npm run bench:pace\n\n${markdown}\n`);
		if (writesDocs() && everyCase)
			writeDocsSection('bench-pace.md', `pace-${version}`, 'npm run bench:pace -- --write-docs', markdown);
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
