import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { RunWorkflowOptions } from '../engine/workflowRunner';
import { productRegistrationNode, runWorkflow } from '../engine/workflowRunner';
import { seedSampleData } from '../sandbox/sampleData';
import { Sandbox } from '../sandbox/service';

interface Demo {
	title: string;
	/** What a shop would use it for. */
	story: string;
	run: Omit<RunWorkflowOptions, 'credentials'>;
	/** The node whose output is shown. */
	show: string;
}

const crmContacts: INodeExecutionData[] = [
	{ json: { contact: 'Ann Lee', email: 'ann.lee@example.com' } },
	{ json: { contact: 'Bo Chen', email: 'bo.chen@example.com' } },
	{ json: { contact: 'Cy Diaz', email: 'cy.diaz@example.com' } },
];

const lookUpRegistrations = (continueOnFail: boolean) =>
	productRegistrationNode(
		'Registrations of contact',
		{
			resource: 'registration',
			operation: 'getAll',
			returnAll: true,
			filters: { email: '={{ $json.email }}' },
		},
		continueOnFail,
	);

const demos: Demo[] = [
	{
		title: "Look up each CRM contact's registrations",
		story: 'Three contacts come in from a CRM; the node lists the registrations made with each email address.',
		run: {
			workflow: { nodes: [lookUpRegistrations(false)], connections: {} },
			startNode: 'Registrations of contact',
			items: crmContacts,
		},
		show: 'Registrations of contact',
	},
	{
		title: 'A bad row does not stop the run (Continue On Fail)',
		story: 'One contact has a malformed email: with Continue On Fail it becomes an error item, the rest go through.',
		run: {
			workflow: { nodes: [lookUpRegistrations(true)], connections: {} },
			startNode: 'Registrations of contact',
			items: [crmContacts[0], { json: { contact: 'Typo', email: 'ann.lee at example' } }],
		},
		show: 'Registrations of contact',
	},
];

function summarize(json: IDataObject): string {
	const text = JSON.stringify(json);
	return text.length > 150 ? `${text.slice(0, 147)}...` : text;
}

async function main(): Promise<void> {
	const sandbox = await Sandbox.start();
	seedSampleData(sandbox.state);
	const credentials = { baseUrl: sandbox.baseUrl, accessToken: sandbox.token };
	console.log(`Sandbox service at ${sandbox.baseUrl}, object storage at ${sandbox.storage.url}\n`);

	let failed = false;
	try {
		for (const [index, demo] of demos.entries()) {
			const requestsBefore = sandbox.requests.length;
			const started = Date.now();
			const result = await runWorkflow({ ...demo.run, credentials });
			console.log(`${index + 1}. ${demo.title}\n   ${demo.story}`);
			const items = result.outputs[demo.show] ?? [];
			for (const item of items) {
				const from = (item.pairedItem as { item: number } | undefined)?.item;
				console.log(`   from input ${from}: ${summarize(item.json)}`);
			}
			if (result.error) {
				failed = true;
				console.log(`   the run failed: ${result.error.message}`);
			}
			console.log(
				`   ${items.length} item(s) out, ${sandbox.requests.length - requestsBefore} request(s) to the service, ${Date.now() - started} ms\n`,
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
