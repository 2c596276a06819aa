import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IConnections, IDataObject, INode, INodeExecutionData, WorkflowExecuteMode } from 'n8n-workflow';

import { startWebhookServer, TRIGGER_NODE_NAME } from '../harness/webhookServer.cts';
import type { RunWorkflowOptions } from '../harness/workflowRunner.cts';
import { PollingTrigger } from '../harness/pollingTrigger.cts';
import type { ServiceCredentials } from '../harness/workflowRunner.cts';
import {
	POLL_TRIGGER_NODE_TYPE,
	productRegistrationNode,
	runWorkflow,
	TRIGGER_NODE_TYPE,
} from '../harness/workflowRunner.cts';
import { describeRateLimit, rateLimitFromEnvironment } from '../sandbox/refusals.cts';
import { seedSampleData } from '../sandbox/sampleData.cts';
import { Sandbox } from '../sandbox/service.cts';

interface Demo {
	title: string;
	/** What a shop would use it for. */
	story: string;
	run: Omit<RunWorkflowOptions, 'credentials'>;
	/** The node whose output is shown. */
	show: string;
	/** What of each output item is printed (all of it when not given). */
	view?: (json: IDataObject) => unknown;
	/**
	 * For a workflow that starts at one of the package's triggers: what starts run `run` — the webhook the service
	 * sends, or a poll after customers registered — and the items the trigger hands on (none: the run does not start).
	 */
	trigger?: (run: number) => Promise<{ what: string; items: INodeExecutionData[]; mode?: WorkflowExecuteMode }>;
	/** How often to run it: a scheduled import runs again, and must create nothing the second time. */
	runs?: number;
	/** Data the service should hold before it runs. */
	seed?: (sandbox: Sandbox) => void;
}

const crmContacts: INodeExecutionData[] = [
	{ json: { contact: 'Ann Lee', email: 'ann.lee@example.com' } },
	{ json: { contact: 'Bo Chen', email: 'bo.chen@example.com' } },
	{ json: { contact: 'Cy Diaz', email: 'cy.diaz@example.com' } },
];

const node = productRegistrationNode;
const one = (name: string, parameters: Record<string, unknown>, continueOnFail = false) => ({
	workflow: { nodes: [node(name, parameters as never, continueOnFail)], connections: {} },
	startNode: name,
});

/** Shows what the example workflows do not: chaining on a lookup, a bad row, and serials that are or are not known. */
const moreDemos: Demo[] = [
	{
		title: "Look up each CRM contact's registrations, then approve them",
		story: 'Get Many lists the registrations of each contact; Change Status confirms each one it found.',
		run: {
			workflow: {
				nodes: [
					node('Registrations of contact', {
						resource: 'registration',
						operation: 'getAll',
						returnAll: true,
						filters: { email: '={{ $json.email }}' },
					}),
					node('Confirm', {
						resource: 'registration',
						operation: 'updateStatus',
						registrationId: '={{ $json.id }}',
						status: 'Confirmed',
						isPublic: true,
						additionalFields: { note: 'Checked against the CRM' },
					}),
				],
				connections: {
					'Registrations of contact': { main: [[{ node: 'Confirm', type: 'main', index: 0 }]] },
				},
			},
			startNode: 'Registrations of contact',
			items: crmContacts,
		},
		show: 'Confirm',
		view: ({ id, productName, customerEmail, status, isPublic }) => ({
			id,
			productName,
			customerEmail,
			status,
			isPublic,
		}),
	},
	{
		title: 'A bad row does not stop the run (Continue On Fail)',
		story: 'One contact has a malformed email: with Continue On Fail it becomes an error item, the rest go through.',
		run: {
			...one(
				'Registrations of contact',
				{ resource: 'registration', operation: 'getAll', returnAll: true, filters: { email: '={{ $json.email }}' } },
				true,
			),
			items: [crmContacts[1], { json: { contact: 'Typo', email: 'ann.lee at example' } }],
		},
		show: 'Registrations of contact',
	},
	{
		title: 'Every registration of a form, however many pages the service answers in',
		story:
			'The service lists 20 a page unless asked for more (at most 100): Get Many asks for 100 a page until it has all.',
		seed: (sandbox) =>
			sandbox.state.createRegistrations(
				Array.from({ length: 240 }, (_, index) => ({
					productName: 'Blender B3',
					customerEmail: `claimant${index + 1}@example.com`,
					type: 'warranty-claim',
				})),
			),
		run: one('Registrations of the form', {
			resource: 'registration',
			operation: 'getAll',
			returnAll: true,
			filters: { formSlug: { __rl: true, mode: 'list', value: 'warranty-claim', cachedResultName: 'Warranty claim' } },
		}),
		show: 'Registrations of the form',
		view: ({ id, customerEmail, type }) => ({ id, customerEmail, type }),
	},
	{
		title: 'Check serial numbers a customer typed in',
		story: 'A known serial (with "/" and a space in it) is found; an unknown one is found: false, not an error.',
		run: {
			...one('Check serial', { resource: 'serialNumber', operation: 'get', serialNumber: '={{ $json.serial }}' }),
			items: [{ json: { serial: 'BL/2024 0001' } }, { json: { serial: 'NOPE-0000' } }],
		},
		show: 'Check serial',
	},
];

const examplesDirectory = join(__dirname, '..', 'examples');

/** The two outlines of the app's webhook: as its documentation shows it, and as a live shop sent it. */
const WEBHOOK_SAMPLES = ['sample-registration-webhook.json', 'sample-registration-webhook-wrapped.json'];

const MCP_TRIGGER_TYPE = '@n8n/n8n-nodes-langchain.mcpTrigger';

interface ExampleWorkflow {
	name: string;
	nodes: INode[];
	connections: IConnections;
}

const receipt = {
	data: Buffer.from('%PDF-1.4\nReceipt for order 1001: Kettle K1, $49.00\n%%EOF\n').toString('base64'),
	fileName: 'receipt-1001.pdf',
	mimeType: 'application/pdf',
};

/** What each example's form submission holds, as n8n's Form Trigger gives it: the fields by label, the file's binary. */
const formSubmissions: Record<string, INodeExecutionData> = {
	'upload-receipt-and-attach.json': {
		json: { 'Customer Email': 'ann.lee@example.com', Product: 'Kettle K1' },
		binary: { Receipt: receipt },
	},
	'register-from-form.json': {
		json: {
			Name: 'Cy Diaz',
			Email: 'cy.diaz@example.com',
			Product: 'Blender B3',
			'Serial Number': 'BL/2024 0001',
			'Purchase Date': '2024-09-14',
			Receipt: { filename: receipt.fileName, mimetype: receipt.mimeType, size: 53 },
		},
		binary: { Receipt: receipt },
	},
};

/** What an MCP client asks the MCP example, one request an item: the tools, then a shop assistant's calls. */
const mcpClientRequests: INodeExecutionData[] = [
	{ method: 'tools/list' },
	{
		method: 'tools/call',
		name: 'Register_product',
		arguments: {
			Product_Name: 'Kettle K1',
			Customer_Email: 'gil.ray@example.com',
			Serial_Numbers: 'KT-2024-0101, KT-2024-0102',
			Purchase_Date: '2024-10-05',
		},
	},
	{ method: 'tools/call', name: 'Find_registrations', arguments: { Customer_Email: 'ann.lee@example.com' } },
	{ method: 'tools/call', name: 'Look_up_serial_number', arguments: { Serial_Number: 'KT-2024-0001' } },
	{ method: 'tools/call', name: 'Change_status', arguments: { Registration: 'R000001', Status: 'Confirmed' } },
].map((request) => ({ json: request }));

/** An MCP answer in short: the tools' names, or what a tool answered. */
const mcpAnswer = (json: IDataObject) =>
	(json.tools as Array<{ name: string }> | undefined)?.map((tool) => tool.name) ??
	(json.content as Array<{ text: string }>)[0].text;

/**
 * Each workflow in examples/ as it would be imported into n8n, run from its start node: the Manual Trigger with the
 * click's empty item, the Form Trigger with a sample submission, the Product Registration Trigger with a sample
 * webhook fired at it over HTTP, and the MCP Server Trigger with an MCP client's requests. The output shown is that of
 * the workflow's last node.
 */
function exampleDemos(sandbox: Sandbox, credentials: ServiceCredentials): Demo[] {
	return readdirSync(examplesDirectory)
		.filter((file) => file.endsWith('.json') && !file.startsWith('sample-'))
		.map((file) => {
			const example = JSON.parse(readFileSync(join(examplesDirectory, file), 'utf8')) as ExampleWorkflow;
			const nodes = example.nodes.filter((candidate) => candidate.type !== 'n8n-nodes-base.stickyNote');
			const start = nodes.find((candidate) => /trigger/i.test(candidate.type))!;
			const last = nodes.find((candidate) => !example.connections[candidate.name])!;
			const note = example.nodes.find((candidate) => candidate.type === 'n8n-nodes-base.stickyNote');
			const story = String(note?.parameters.content ?? '').split('\n')[1] ?? '';
			const demo: Demo = {
				title: `${example.name} (examples/${file})`,
				story: story.length > 160 ? `${story.slice(0, 157)}...` : story,
				run: {
					workflow: { name: example.name, nodes, connections: example.connections },
					startNode: start.name,
					items: start.type === MCP_TRIGGER_TYPE ? mcpClientRequests : [formSubmissions[file] ?? { json: {} }],
				},
				show: last.name,
				view: start.type === MCP_TRIGGER_TYPE ? mcpAnswer : undefined,
			};
			// A scheduled import runs again, and a customer may send the same form twice: the second run creates nothing.
			if (start.type === 'n8n-nodes-base.scheduleTrigger' || file === 'register-from-form.json') demo.runs = 2;
			if (start.type === TRIGGER_NODE_TYPE) {
				demo.runs = WEBHOOK_SAMPLES.length;
				demo.trigger = async (run) => {
					const payload = JSON.parse(
						readFileSync(join(examplesDirectory, WEBHOOK_SAMPLES[run - 1]), 'utf8'),
					) as IDataObject;
					const items = await fireWebhook(demo, payload, run);
					for (const item of items) {
						const { product, fields, formSlug } = item.json as {
							product?: IDataObject;
							fields?: IDataObject;
							formSlug?: string;
						};
						console.log(`   the trigger gave: ${summarize({ product: product?.title, fields, formSlug })}`);
					}
					return { what: `the webhook ${WEBHOOK_SAMPLES[run - 1]}`, items };
				};
			}
			if (start.type === POLL_TRIGGER_NODE_TYPE) {
				demo.runs = 2;
				demo.trigger = pollAfterRegistrations(start.parameters, sandbox, credentials);
			}
			return demo;
		});
}

function summarize(json: IDataObject, view?: Demo['view']): string {
	const text = JSON.stringify(view && json.error === undefined ? view(json) : json);
	return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** Customers who register while the poll trigger's workflow is active. */
const NEW_REGISTRATIONS = [
	{
		productName: 'Kettle K1',
		customerEmail: 'eve.park@example.com',
		customerName: 'Eve Park',
		serialNumbers: ['KT-2024-0002'],
		purchaseDate: '2024-10-02',
	},
	{
		productName: 'Toaster T2',
		customerEmail: 'finn.ode@example.com',
		customerName: 'Finn Ode',
		purchaseDate: '2024-10-03',
	},
];

/**
 * The poll trigger as an active workflow meets it: activated before run 1 (it starts from then), then before each run
 * the customers who registered since — two before run 1, none before run 2 — and one poll, whose items start the run.
 */
function pollAfterRegistrations(
	parameters: INode['parameters'],
	sandbox: Sandbox,
	credentials: ServiceCredentials,
): NonNullable<Demo['trigger']> {
	let poller: PollingTrigger | undefined;
	return async (run) => {
		if (!poller) {
			poller = new PollingTrigger(parameters, credentials);
			await poller.activate();
		}
		const registered = run === 1 ? NEW_REGISTRATIONS : [];
		if (registered.length > 0) sandbox.state.createRegistrations(registered);
		const { items, error } = await poller.poll();
		if (error) throw error;
		return { what: `a poll after ${registered.length} new registration(s)`, items, mode: 'trigger' };
	};
}

/** The secret the demo's Product Registration Webhook API credential holds, for the triggers that name it. */
const WEBHOOK_SECRET = 'demo-webhook-secret-0001';

/**
 * The secret a trigger checks, as the example saved it: a node added before 0.7 (version 1) holds it as a parameter,
 * a newer one takes it from its credential when Authentication is Shared Secret.
 */
function secretOf(trigger: INode): string {
	if (trigger.typeVersion < 2) return String(trigger.parameters.secret ?? '');
	return trigger.parameters.authentication === 'sharedSecret' ? WEBHOOK_SECRET : '';
}

/**
 * Posts the payload to the trigger's webhook URL, as the service would (with ?secret= when the trigger checks one),
 * and returns the items it starts with. On the first run a call without the secret comes first: it must be refused.
 */
async function fireWebhook(demo: Demo, payload: IDataObject, run: number): Promise<INodeExecutionData[]> {
	const trigger = demo.run.workflow.nodes.find((candidate) => candidate.name === TRIGGER_NODE_NAME)!;
	const secret = secretOf(trigger);
	const received: INodeExecutionData[] = [];
	const server = await startWebhookServer({
		parameters: trigger.parameters,
		typeVersion: trigger.typeVersion,
		credentials: trigger.credentials && {
			saved: trigger.credentials,
			data: { productRegistrationWebhookApi: { secret: WEBHOOK_SECRET } },
		},
		onWorkflowData: (items) => received.push(...items),
	});
	const post = async (query: string) =>
		await fetch(`${server.url}${query}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(payload),
		});
	try {
		if (secret !== '' && run === 1) {
			const refused = await post('');
			console.log(`   webhook POST ${server.url} (no secret) -> ${refused.status} ${await refused.text()}`);
			if (refused.status !== 401 || received.length > 0)
				throw new Error('The trigger let a call without its secret start the workflow');
		}
		const response = await post(secret === '' ? '' : `?secret=${encodeURIComponent(secret)}`);
		const shown = secret === '' ? '' : '?secret=<the secret>';
		console.log(`   webhook POST ${server.url}${shown} -> ${response.status} ${await response.text()}`);
	} finally {
		await server.stop();
	}
	return received;
}

async function main(): Promise<void> {
	const sandbox = await Sandbox.start();
	seedSampleData(sandbox.state);
	const credentials = { baseUrl: sandbox.baseUrl, accessToken: sandbox.token };
	// SANDBOX_RATE=2 npm run demo: the same workflows against a service that allows 2 requests a second.
	const rateLimit = rateLimitFromEnvironment(process.env);
	sandbox.limitRate(rateLimit);
	console.log(
		`Sandbox service at ${sandbox.baseUrl}, object storage at ${sandbox.storage.url}${rateLimit ? `; the service allows ${describeRateLimit(rateLimit)}` : ''}\n`,
	);

	let failed = false;
	try {
		for (const [index, demo] of [...exampleDemos(sandbox, credentials), ...moreDemos].entries()) {
			console.log(`${index + 1}. ${demo.title}\n   ${demo.story}`);
			demo.seed?.(sandbox);
			for (let run = 1; run <= (demo.runs ?? 1); run++) {
				const requestsBefore = sandbox.requests.length;
				const registrationsBefore = sandbox.state.registrations.size;
				const refusedBefore = sandbox.refusals?.refused ?? 0;
				const started = Date.now();
				if (demo.runs) console.log(`   run ${run}${!demo.trigger && run > 1 ? ' (the same input again)' : ''}:`);
				const triggered = await demo.trigger?.(run);
				if (triggered) console.log(`   started by ${triggered.what}`);
				if (triggered?.items.length === 0) {
					console.log(
						`   nothing new: the workflow does not start (${sandbox.requests.length - requestsBefore} request)\n`,
					);
					continue;
				}
				const items = triggered?.items ?? demo.run.items;
				const result = await runWorkflow({ ...demo.run, items, credentials, mode: triggered?.mode });
				const shown = result.outputs[demo.show] ?? [];
				for (const item of shown.slice(0, 6)) {
					const from = (item.pairedItem as { item: number } | undefined)?.item;
					console.log(`   from input ${from}: ${summarize(item.json, demo.view)}`);
				}
				if (shown.length > 6) console.log(`   ... and ${shown.length - 6} more`);
				if (result.error) {
					failed = true;
					console.log(`   the run failed: ${result.error.message}`);
				}
				const created = sandbox.state.registrations.size - registrationsBefore;
				const refused = (sandbox.refusals?.refused ?? 0) - refusedBefore;
				console.log(
					`   ${shown.length} item(s) out, ${sandbox.requests.length - requestsBefore - refused} request(s) to the service${rateLimit ? ` (and ${refused} refused for the rate)` : ''}, ${created} registration(s) created, ${Date.now() - started} ms\n`,
				);
			}
		}
	} finally {
		await sandbox.stop();
	}
	if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
