import type { IDataObject } from 'n8n-workflow';

import { callTool, mcpServerWorkflow } from '../harness/mcpClient.cts';
import { runNode } from '../harness/workflowRunner.cts';
import { Sandbox } from '../sandbox/service.cts';

/**
 * What a model reads when it asks the Get Many tool for the registrations of a customer who has 130: the tool's answer
 * as the MCP Server Trigger stand-in hands it on (n8n-core makes the tool, as in n8n), compact against whole
 * registrations, at the default Limit and at the most a model may ask for; beside it what the plain Get Many with
 * Return All gives for the same customer, which is what a 0.4 tool gave a model with Return All set.
 */

export const CUSTOMER_REGISTRATIONS = 130;
const EMAIL = 'loyal.customer@example.com';

export interface ToolAnswerRow {
	answer: string;
	/** The registrations the answer holds, and what it says of the rest. */
	shown: number;
	summary: string;
	bytes: number;
}

/** The customer's registrations as their forms sent them, one a second, each with a status the admin set. */
function seedCustomer(sandbox: Sandbox): void {
	const registrations = sandbox.state.registerOverTime(
		Array.from({ length: CUSTOMER_REGISTRATIONS }, (_, index) => ({
			productName: ['Kettle K1', 'Toaster T2', 'Blender B3'][index % 3],
			customerEmail: EMAIL,
			customerName: 'Lou Loyal',
			serialNumbers: [`SN-${String(index + 1).padStart(6, '0')}`],
			purchaseDate: '2024-03-01',
			type: 'extended-warranty',
			customer: { id: 4242, firstName: 'Lou', lastName: 'Loyal', city: 'Albany', State: 'NY', country: 'US' },
			'where-did-you-purchase-this-product-from-': 'Our online shop',
			'order-number': `#${10_000 + index}`,
			receipt: `https://files.example.com/receipts/${10_000 + index}.pdf`,
		})),
	);
	for (const { id } of registrations) sandbox.state.changeStatus(id, { status: 'Confirmed', isPublic: true });
}

const bytesOf = (text: string) => Buffer.byteLength(text, 'utf8');

export async function measureToolAnswers(): Promise<ToolAnswerRow[]> {
	const sandbox = await Sandbox.start();
	try {
		seedCustomer(sandbox);
		const credentials = { baseUrl: sandbox.baseUrl, accessToken: sandbox.token };
		const rows: ToolAnswerRow[] = [];
		for (const [toolAnswer, limit] of [
			['compact', undefined],
			['compact', 100],
			['whole', undefined],
			['whole', 100],
		] as const) {
			const tools = mcpServerWorkflow({
				Find_registrations: { resource: 'registration', operation: 'getAll', toolAnswer },
			});
			const args: IDataObject = { Customer_Email: EMAIL, ...(limit ? { Limit: limit } : {}) };
			const { text, isError } = await callTool(tools, 'Find_registrations', args, credentials);
			if (isError) throw new Error(text);
			const [answer] = JSON.parse(text) as Array<{ summary: string; registrations: IDataObject[] }>;
			rows.push({
				answer: `tool, Output ${toolAnswer === 'compact' ? 'Simplified (the default)' : 'Raw'}, Limit ${limit ?? '50 (the default)'}`,
				shown: answer.registrations.length,
				summary: answer.summary,
				bytes: bytesOf(text),
			});
		}
		const plain = await runNode({
			parameters: { resource: 'registration', operation: 'getAll', returnAll: true, filters: { email: EMAIL } },
			credentials,
		});
		rows.push({
			answer: 'plain Get Many, Return All (what a 0.4 tool gave with Return All set)',
			shown: plain.items.length,
			summary: '(none)',
			bytes: bytesOf(JSON.stringify(plain.items.map((item) => item.json))),
		});
		return rows;
	} finally {
		await sandbox.stop();
	}
}

/** The rows as Markdown. */
export function toolAnswerTable(rows: ToolAnswerRow[]): string {
	const lines = [
		`| answer to "the registrations of ${EMAIL}" (${CUSTOMER_REGISTRATIONS} registrations) | registrations in it | what it says of the rest | size | per registration |`,
		'|---|---|---|---|---|',
	];
	for (const row of rows) {
		const kb = (row.bytes / 1024).toFixed(1);
		lines.push(
			`| ${row.answer} | ${row.shown} | ${row.summary} | ${row.bytes.toLocaleString('en-US')} bytes (${kb} KiB) | ${Math.round(row.bytes / row.shown)} bytes |`,
		);
	}
	return lines.join('\n');
}
