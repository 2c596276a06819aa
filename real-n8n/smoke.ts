import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { startMisbehavingServer } from '../harness/misbehavingServer';
import { ECHO_LIMIT } from '../nodes/ProductRegistration/transport/answerText';
import { seedSampleData } from '../sandbox/sampleData';
import { Sandbox } from '../sandbox/service';
import type { Example } from './examples';
import { CREDENTIAL, importExamples } from './examples';
import type { RealN8n } from './instance';
import { N8N_LINES, nodeOutput, packPackage, root, waitFor } from './instance';

/**
 * `npm run test:n8n`: every workflow of examples/ imported into a real n8n (each line of N8N_LINES, the package
 * installed as n8n's community-package installer does) and run against the sandbox as a user runs it: those that
 * start with a Manual Trigger by `n8n execute`, the others by calling their trigger over HTTP on a started n8n —
 * the registration webhook, the receipt form. Each run's items are checked. Not part of CI (it needs a real n8n).
 */

type Items = Array<Record<string, unknown>>;

interface Check {
	/** How the example is started. */
	start: 'execute' | 'webhook' | 'form';
	/** How often it is run, one run after the other (a scheduled import runs again). */
	runs?: number;
	/** Problems with what the last node gave in run `run` (and what the service now holds); none means it passed. */
	check(items: Items, sandbox: Sandbox, run: number): string[];
}

const expectThat = (condition: boolean, problem: string) => (condition ? [] : [problem]);

const CHECKS: Record<string, Check> = {
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
		check: (items) =>
			expectThat(
				items.length === 1 && items[0].found === true && items[0].serialNumber === 'KT-2024-0001',
				`the serial of the webhook looked up expected, got ${JSON.stringify(items)}`,
			),
	},
	'upload-receipt-and-attach.json': {
		start: 'form',
		check: (items, sandbox) => {
			const history = (items[0]?.statusHistory as Array<{ status: string; assets?: Array<{ url: string }> }>) ?? [];
			const last = history[history.length - 1];
			return [
				...expectThat(
					items.length === 1 && items[0].status === 'receipt received',
					`the status change expected, got ${JSON.stringify(items).slice(0, 300)}`,
				),
				...expectThat(
					last?.assets?.[0]?.url.startsWith(sandbox.storage.url) === true,
					`the uploaded receipt attached expected, got ${JSON.stringify(last)}`,
				),
			];
		},
	},
};

const RECEIPT = Buffer.from('%PDF-1.4\nReceipt for order 1001: Kettle K1, $49.00\n%%EOF\n');

/** Calls the trigger of a started, active example the way its real caller would. */
async function callTrigger(n8n: RealN8n, example: Example, start: Check['start']): Promise<void> {
	const trigger = example.workflow.nodes.find((node) => node.webhookId)!;
	if (start === 'webhook') {
		const payload = readFileSync(join(root, 'examples', 'sample-registration-webhook.json'));
		const url = `${n8n.baseUrl}/webhook/${trigger.webhookId}/product-registration`;
		// A workflow's webhooks can reach n8n a little after it reports ready (2.x): retry a 404 for a while.
		await waitFor(`the webhook ${url}`, async () => {
			const response = await fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: payload,
			});
			return response.status === 404 ? undefined : response.status;
		});
		return;
	}
	const form = new FormData();
	form.append('field-0', 'R000001');
	form.append('field-1', new Blob([RECEIPT], { type: 'application/pdf' }), 'receipt-1001.pdf');
	const url = `${n8n.baseUrl}/form/${(trigger.parameters.path as string | undefined) || trigger.webhookId}`;
	await waitFor(`the form ${url}`, async () => {
		const response = await fetch(url, { method: 'POST', body: form });
		return response.status === 404 ? undefined : response.status;
	});
}

const SLOW_CREDENTIAL = { ...CREDENTIAL, id: 'prCredentialSlow', name: 'Trickling service' };

/** Manual Trigger → one node, as a workflow to import. */
function oneNodeWorkflow(id: string, node: Record<string, unknown>) {
	return {
		id,
		name: id,
		active: false,
		connections: { Start: { main: [[{ node: 'Under test', type: 'main', index: 0 }]] } },
		nodes: [
			{
				id: 'b0000000-0000-4000-8000-000000000001',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{ id: 'b0000000-0000-4000-8000-000000000002', name: 'Under test', position: [200, 0], ...node },
		],
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
		await n8n.importCredential({ ...SLOW_CREDENTIAL, data: { baseUrl: trickle.url, accessToken: 'token' } });
		await n8n.importWorkflow(
			oneNodeWorkflow('deadlineNode', {
				type: 'n8n-nodes-product-registration.productRegistration',
				typeVersion: 1,
				parameters: {
					resource: 'registration',
					operation: 'getAll',
					returnAll: true,
					options: { timeout: 5000, maxRetries: 0 },
				},
				credentials: { [SLOW_CREDENTIAL.type]: { id: SLOW_CREDENTIAL.id, name: SLOW_CREDENTIAL.name } },
			}),
		);
		await n8n.importWorkflow(
			oneNodeWorkflow('deadlineHttp', {
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				parameters: { url: `${trickle.url}/api/registrations`, options: { timeout: 5000 } },
			}),
		);
		const ours = await n8n.execute('deadlineNode', { timeoutMs: 60_000 });
		const http = await n8n.execute('deadlineHttp', { timeoutMs: 60_000 });
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

const FLOODED_CREDENTIAL = { ...CREDENTIAL, id: 'prCredentialFlood', name: 'Flooding service' };
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
		await n8n.importCredential({ ...FLOODED_CREDENTIAL, data: { baseUrl: service.url, accessToken: 'token' } });
		await n8n.importWorkflow(
			oneNodeWorkflow('floodNode', {
				type: 'n8n-nodes-product-registration.productRegistration',
				typeVersion: 1,
				parameters: { resource: 'registration', operation: 'delete', registrationId: 'R000001' },
				credentials: { [FLOODED_CREDENTIAL.type]: { id: FLOODED_CREDENTIAL.id, name: FLOODED_CREDENTIAL.name } },
			}),
		);
		await n8n.importWorkflow(
			oneNodeWorkflow('floodHttp', {
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				parameters: { method: 'DELETE', url: `${service.url}/api/registrations/R000001` },
			}),
		);
		const describe = (result: Awaited<ReturnType<RealN8n['execute']>>) => {
			const error = result.data?.data.resultData.error;
			const messageLength =
				(error?.message?.length ?? 0) + ((error as { description?: string })?.description?.length ?? 0);
			const kb = (Buffer.byteLength(JSON.stringify(result.data ?? null)) / 1024).toFixed(0);
			return {
				messageLength,
				text: `execution data ${kb} KB, error message and description ${messageLength.toLocaleString('en-US')} characters, n8n's peak RSS ${result.output.peakRssMb} MB`,
			};
		};
		const ours = describe(await n8n.execute('floodNode', { timeoutMs: 120_000 }));
		const http = describe(await n8n.execute('floodHttp', { timeoutMs: 120_000 }));
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

async function smokeOneLine(version: string, tarball: string): Promise<boolean> {
	console.log(`\nn8n ${version}`);
	const sandbox = await Sandbox.start();
	seedSampleData(sandbox.state);
	const { n8n, examples } = await importExamples(version, tarball, sandbox);
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
				const problems = error ? [`the run failed: ${error}`] : check(items, sandbox, run);
				const held = `the service holds ${sandbox.state.registrations.size} registrations`;
				report(
					example.file,
					problems,
					`n8n execute${runs > 1 ? ` run ${run}` : ''}, ${items.length} item(s) from "${example.lastNode}"${runs > 1 ? `; ${held}` : ''}`,
				);
			}
		}

		passed = (await checkDeadline(n8n)).length === 0 && passed;
		passed = (await checkFloodedAnswer(n8n)).length === 0 && passed;

		const triggered = examples.filter(({ file }) => CHECKS[file]?.start !== 'execute');
		for (const example of triggered) await n8n.activate(example.workflow.id);
		await n8n.start();
		const cookie = await n8n.ownerSession();
		for (const example of triggered) {
			await callTrigger(n8n, example, CHECKS[example.file].start);
			const [execution] = await waitFor(`an execution of ${example.file}`, async () => {
				const executions = await n8n.executionsOf(example.workflow.id, cookie);
				return executions.some((entry) => entry.status !== 'running' && entry.status !== 'new')
					? executions
					: undefined;
			});
			const items = nodeOutput({ data: execution.data }, example.lastNode);
			const problems =
				execution.status === 'success'
					? CHECKS[example.file].check(items, sandbox, 1)
					: [`the execution ended ${execution.status}: ${execution.data.resultData.error?.message}`];
			report(
				example.file,
				problems,
				`${CHECKS[example.file].start} call on a started n8n, ${items.length} item(s) from "${example.lastNode}"`,
			);
		}
	} finally {
		await n8n.stop();
		await sandbox.stop();
		n8n.cleanUp();
	}
	const unchecked = readdirSync(join(root, 'examples')).filter(
		(file) => file.endsWith('.json') && !file.startsWith('sample-') && !CHECKS[file],
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
