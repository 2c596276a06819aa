import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { startWebhookServer, TRIGGER_NODE_NAME } from '../engine/webhookServer';
import type { RunWorkflowOptions } from '../engine/workflowRunner';
import { productRegistrationNode, runWorkflow, TRIGGER_NODE_TYPE } from '../engine/workflowRunner';
import { seedSampleData } from '../sandbox/sampleData';
import { Sandbox } from '../sandbox/service';

interface Demo {
	title: string;
	/** What a shop would use it for. */
	story: string;
	run: Omit<RunWorkflowOptions, 'credentials'>;
	/** The node whose output is shown. */
	show: string;
	/** What of each output item is printed (all of it when not given). */
	view?: (json: IDataObject) => unknown;
	/** For a workflow that starts at the trigger: the webhook the service would send, fired at it over HTTP. */
	webhookPayload?: IDataObject;
}

const crmContacts: INodeExecutionData[] = [
	{ json: { contact: 'Ann Lee', email: 'ann.lee@example.com' } },
	{ json: { contact: 'Bo Chen', email: 'bo.chen@example.com' } },
	{ json: { contact: 'Cy Diaz', email: 'cy.diaz@example.com' } },
];

const sheetRows: INodeExecutionData[] = [
	{ json: { product: 'Kettle K1', email: 'dee.fox@example.com', name: 'Dee Fox', serials: 'KT-2024-0002', bought: '2024-07-01', state: 'CA' } },
	{ json: { product: 'Toaster T2', email: 'eli.gray@example.com', name: 'Eli Gray', serials: '', bought: '2024-07-02T18:30:00+02:00', state: 'TX' } },
	{ json: { product: 'Blender B3', email: 'fay.hunt@example.com', name: 'Fay Hunt', serials: 'BL/2024 0001', bought: '2024-07-03', state: 'NY' } },
];

const warehouseSheet: INodeExecutionData[] = Array.from({ length: 250 }, (_, index) => ({
	json: { serial: `WH-2024-${String(index + 1).padStart(4, '0')}`, sku: 'KETTLE-K1', tags: 'kettle, 2024' },
}));

const node = productRegistrationNode;
const one = (name: string, parameters: Record<string, unknown>, continueOnFail = false) => ({
	workflow: { nodes: [node(name, parameters as never, continueOnFail)], connections: {} },
	startNode: name,
});

const registrationWebhook: IDataObject = {
	type: 'product-registration',
	items: [
		{ product: { name: 'Kettle K1', sku: 'KETTLE-K1' }, purchaseDate: '2024-07-09', serialNumbers: ['KT-2024-0001'], extraFields: [] },
		{ product: { name: 'Blender B3', sku: 'BLENDER-B3' }, purchaseDate: '2024-07-09', serialNumbers: ['BL/2024 0001'], extraFields: [] },
	],
	customer: { name: 'Gus Ide', email: 'gus.ide@example.com' },
};

const demos: Demo[] = [
	{
		title: 'React to a new registration (trigger)',
		story: 'The service posts a registration webhook; the trigger splits it per product, and each serial is looked up.',
		webhookPayload: registrationWebhook,
		run: {
			workflow: {
				nodes: [
					{
						id: 'trigger',
						name: TRIGGER_NODE_NAME,
						type: TRIGGER_NODE_TYPE,
						typeVersion: 1,
						position: [0, 0],
						parameters: { splitIntoItems: true },
					},
					node('Look up serial', { resource: 'serialNumber', operation: 'get', serialNumber: '={{ $json.serialNumbers[0] }}' }),
				],
				connections: { [TRIGGER_NODE_NAME]: { main: [[{ node: 'Look up serial', type: 'main', index: 0 }]] } },
			},
			startNode: TRIGGER_NODE_NAME,
		},
		show: 'Look up serial',
	},
	{
		title: 'Register products from spreadsheet rows',
		story: 'Three sheet rows become three registrations in one request (batches of 100), each linked to its row.',
		run: {
			...one('Register product', {
				resource: 'registration',
				operation: 'create',
				productName: '={{ $json.product }}',
				customerEmail: '={{ $json.email }}',
				customerName: '={{ $json.name }}',
				serialNumbers: '={{ $json.serials }}',
				purchaseDate: '={{ $json.bought }}',
				additionalFields: { customer: { details: { state: '={{ $json.state }}' } } },
			}),
			items: sheetRows,
		},
		show: 'Register product',
		view: ({ id, productName, customerEmail, serialNumbers, purchaseDate, customer }) =>
			({ id, productName, customerEmail, serialNumbers, purchaseDate, customer }),
	},
	{
		title: "Look up each CRM contact's registrations, then approve them",
		story: 'Get Many lists the registrations of each contact; Change Status approves each one it found.',
		run: {
			workflow: {
				nodes: [
					node('Registrations of contact', {
						resource: 'registration',
						operation: 'getAll',
						returnAll: true,
						filters: { email: '={{ $json.email }}' },
					}),
					node('Approve', {
						resource: 'registration',
						operation: 'updateStatus',
						registrationId: '={{ $json.id }}',
						status: 'approved',
						isPublic: true,
						additionalFields: { note: 'Checked against the CRM' },
					}),
				],
				connections: {
					'Registrations of contact': { main: [[{ node: 'Approve', type: 'main', index: 0 }]] },
				},
			},
			startNode: 'Registrations of contact',
			items: crmContacts,
		},
		show: 'Approve',
		view: ({ id, productName, customerEmail, status, isPublic }) => ({ id, productName, customerEmail, status, isPublic }),
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
		title: 'Upload a receipt and attach it to a status change',
		story: 'A form sent a receipt: Upload File stores it, Change Status attaches its URL to registration R000001.',
		run: {
			workflow: {
				nodes: [
					node('Upload receipt', { resource: 'file', operation: 'upload' }),
					node('Receipt received', {
						resource: 'registration',
						operation: 'updateStatus',
						registrationId: 'R000001',
						status: 'receipt received',
						isPublic: true,
						additionalFields: { assetsJson: '={{ [{ name: $json.fileName, url: $json.url }] }}' },
					}),
				],
				connections: { 'Upload receipt': { main: [[{ node: 'Receipt received', type: 'main', index: 0 }]] } },
			},
			startNode: 'Upload receipt',
			items: [
				{
					json: { order: 1001 },
					binary: {
						data: {
							data: Buffer.from('%PDF-1.4\nReceipt for order 1001: Kettle K1, $49.00\n%%EOF\n').toString('base64'),
							fileName: 'receipt-1001.pdf',
							mimeType: 'application/pdf',
						},
					},
				},
			],
		},
		show: 'Receipt received',
		view: ({ id, status, statusHistory }) => ({
			id,
			status,
			assets: (statusHistory as IDataObject[]).at(-1)?.assets,
		}),
	},
	{
		title: 'Import serial numbers in bulk',
		story: '250 rows from a warehouse sheet are added in 3 requests (batches of 100).',
		run: {
			...one('Import serials', {
				resource: 'serialNumber',
				operation: 'create',
				serialNumber: '={{ $json.serial }}',
				sku: '={{ $json.sku }}',
				customerTags: '={{ $json.tags }}',
			}),
			items: warehouseSheet,
		},
		show: 'Import serials',
	},
	{
		title: 'Give each new order an unregistered serial number',
		story: 'Three orders arrive at once; each receives a different free serial, never the same one twice.',
		run: {
			...one('Free serial', { resource: 'serialNumber', operation: 'getUnregistered' }),
			items: [{ json: { order: 5001 } }, { json: { order: 5002 } }, { json: { order: 5003 } }],
		},
		show: 'Free serial',
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

function summarize(json: IDataObject, view?: Demo['view']): string {
	const text = JSON.stringify(view && json.error === undefined ? view(json) : json);
	return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** Posts the payload to the trigger's webhook URL, as the service would, and returns the items it starts with. */
async function fireWebhook(demo: Demo, payload: IDataObject): Promise<INodeExecutionData[]> {
	const trigger = demo.run.workflow.nodes.find((candidate) => candidate.name === TRIGGER_NODE_NAME)!;
	const received: INodeExecutionData[] = [];
	const server = await startWebhookServer({
		parameters: trigger.parameters,
		onWorkflowData: (items) => received.push(...items),
	});
	try {
		const response = await fetch(server.url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(payload),
		});
		console.log(`   webhook POST ${server.url} -> ${response.status} ${await response.text()}`);
	} finally {
		await server.stop();
	}
	return received;
}

async function main(): Promise<void> {
	const sandbox = await Sandbox.start();
	seedSampleData(sandbox.state);
	const credentials = { baseUrl: sandbox.baseUrl, accessToken: sandbox.token };
	console.log(`Sandbox service at ${sandbox.baseUrl}, object storage at ${sandbox.storage.url}\n`);

	let failed = false;
	try {
		for (const [index, demo] of demos.entries()) {
			console.log(`${index + 1}. ${demo.title}\n   ${demo.story}`);
			const requestsBefore = sandbox.requests.length;
			const started = Date.now();
			const items = demo.webhookPayload ? await fireWebhook(demo, demo.webhookPayload) : demo.run.items;
			const result = await runWorkflow({ ...demo.run, items, credentials });
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
			console.log(
				`   ${shown.length} item(s) out, ${sandbox.requests.length - requestsBefore} request(s) to the service, ${Date.now() - started} ms\n`,
			);
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
