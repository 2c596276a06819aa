import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import type { Sandbox } from '../../sandbox/service.cts';
import type { Example } from '../examples.cts';
import { MCP_TOKEN } from '../examples.cts';
import type { RealN8n } from '../instance.cts';
import { waitFor } from '../instance.cts';

/**
 * The MCP example (examples/mcp-shop-assistant.json) in a started n8n, its workflow active, called by the official MCP
 * client (@modelcontextprotocol/sdk) over streamable HTTP as Claude Desktop or Cursor call it: the tools listed, and
 * what the client is told of each printed; a product registered, found by the customer's e-mail, its serial number
 * looked up and its status changed by the id the registration answered with; a bad e-mail refused, naming the argument.
 */

export const MCP_EXAMPLE = 'mcp-shop-assistant.json';

interface ListedTool {
	name: string;
	description?: string;
	inputSchema: {
		properties?: Record<string, { type?: string; description?: string; default?: unknown }>;
		required?: string[];
	};
}

/** A tool's answer as the client gets it: its text (JSON for a result), and whether it is an error. */
interface ToolAnswer {
	text: string;
	isError: boolean;
}

const CUSTOMER = { email: 'mcp.customer@example.com', name: 'Mia Client' };
const SERIALS = 'KT-2024-0002';

/** What a client is told of a tool, as printed: its name and description, then each argument, one a line. */
function describeTool(tool: ListedTool): string {
	const required = tool.inputSchema.required ?? [];
	const argumentLines = Object.entries(tool.inputSchema.properties ?? {}).map(([name, argument]) => {
		const need = required.includes(name) ? 'required' : `optional, default ${JSON.stringify(argument.default)}`;
		return `         - ${name} (${argument.type}, ${need}): ${argument.description ?? '(no description)'}`;
	});
	return [`       ${tool.name}: ${tool.description}`, ...argumentLines].join('\n');
}

/** Connects the official client to the trigger's address: n8n 2.x registers a webhook a little after it is up. */
async function connect(url: URL): Promise<Client> {
	return await waitFor(`the MCP server at ${url}`, async () => {
		const client = new Client({ name: 'product-registration-test:n8n', version: '1.0.0' });
		const transport = new StreamableHTTPClientTransport(url, {
			requestInit: { headers: { authorization: `Bearer ${MCP_TOKEN}` } },
		});
		try {
			await client.connect(transport);
			return client;
		} catch {
			await client.close().catch(() => undefined);
			return undefined;
		}
	});
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
	const result = (await client.callTool({ name, arguments: args })) as {
		content: Array<{ type: string; text?: string }>;
		isError?: boolean;
	};
	return { text: result.content.map((part) => part.text ?? '').join(''), isError: result.isError === true };
}

/** The JSON a tool answered with, as one object (n8n hands a tool's output items over as a list). */
function parsed(answer: ToolAnswer): Record<string, unknown> {
	try {
		const value = JSON.parse(answer.text) as unknown;
		return (Array.isArray(value) ? value[0] : value) as Record<string, unknown>;
	} catch {
		return {};
	}
}

export async function checkMcpExample(
	n8n: RealN8n,
	example: Example,
	sandbox: Sandbox,
	report: (file: string, problems: string[], detail: string) => void,
): Promise<void> {
	const trigger = example.workflow.nodes.find((node) => node.type === '@n8n/n8n-nodes-langchain.mcpTrigger')!;
	const url = new URL(`${n8n.baseUrl}/mcp/${trigger.parameters.path as string}`);
	const client = await connect(url);
	const problems: string[] = [];
	const expectThat = (condition: boolean, problem: string) => {
		if (!condition) problems.push(problem);
	};
	const lines: string[] = [];
	const show = (what: string, answer: ToolAnswer) =>
		lines.push(`       ${what} → ${answer.isError ? 'error: ' : ''}${answer.text.slice(0, 400)}`);
	try {
		const { tools } = (await client.listTools()) as { tools: ListedTool[] };
		lines.push(`       the client is told of ${tools.length} tools:`, ...tools.map(describeTool));
		const toolNames = example.workflow.nodes
			.filter((node) => node.type.endsWith('productRegistrationTool'))
			.map((node) => node.name.replace(/ /g, '_'));
		expectThat(
			tools.length === toolNames.length && toolNames.every((name) => tools.some((tool) => tool.name === name)),
			`the tools ${toolNames.join(', ')} expected, got ${tools.map((tool) => tool.name).join(', ')}`,
		);
		for (const tool of tools) {
			expectThat(
				(tool.description ?? '').length > 100 && !tool.description!.endsWith('in Product Registration'),
				`${tool.name}: a description of its own expected, got ${JSON.stringify(tool.description)}`,
			);
			const arguments_ = Object.entries(tool.inputSchema.properties ?? {});
			expectThat(
				arguments_.length > 0 && arguments_.every(([, argument]) => (argument.description ?? '').length > 20),
				`${tool.name}: every argument described expected`,
			);
		}

		const created = await call(client, 'Register_product', {
			Product_Name: 'Kettle K1',
			Customer_Email: CUSTOMER.email,
			Customer_Name: CUSTOMER.name,
			Serial_Numbers: SERIALS,
			Purchase_Date: '2024-10-01',
		});
		show('Register_product (Kettle K1, its serial number and purchase date)', created);
		const id = parsed(created).id as string | undefined;
		const stored = id === undefined ? undefined : sandbox.state.registrations.get(id);
		expectThat(
			!created.isError && stored?.customerEmail === CUSTOMER.email && stored.purchaseDate === '2024-10-01',
			`a registration for ${CUSTOMER.email} created, its id answered, expected; got ${created.text.slice(0, 200)}`,
		);

		const found = await call(client, 'Find_registrations', { Customer_Email: CUSTOMER.email });
		show(`Find_registrations (${CUSTOMER.email})`, found);
		const listed = (parsed(found).registrations ?? []) as Array<Record<string, unknown>>;
		expectThat(
			!found.isError && listed.length === 1 && listed[0].id === id && typeof parsed(found).summary === 'string',
			`the new registration found by the customer's e-mail expected, got ${found.text.slice(0, 200)}`,
		);

		const serial = await call(client, 'Look_up_serial_number', { Serial_Number: SERIALS });
		show(`Look_up_serial_number (${SERIALS})`, serial);
		expectThat(!serial.isError && parsed(serial).found === true, `${SERIALS} found expected, got ${serial.text}`);

		const changed = await call(client, 'Change_status', {
			Registration: id ?? '',
			Status: 'Confirmed',
			Note: 'Receipt checked',
		});
		show(`Change_status (${id} to Confirmed)`, changed);
		expectThat(
			!changed.isError &&
				parsed(changed).status === 'Confirmed' &&
				sandbox.state.registrations.get(id ?? '')?.status === 'Confirmed',
			`${id} Confirmed expected, got ${changed.text.slice(0, 200)}`,
		);

		const refused = await call(client, 'Register_product', {
			Product_Name: 'Kettle K1',
			Customer_Email: 'mia at example',
		});
		show('Register_product (Customer_Email "mia at example")', refused);
		expectThat(
			refused.text.includes('Customer_Email') && !/item \d/.test(refused.text),
			`an error naming the argument Customer_Email (and no item) expected, got ${refused.text}`,
		);
	} finally {
		await client.close();
	}
	report(
		example.file,
		problems,
		`the official MCP client over streamable HTTP at ${url.pathname}:\n${lines.join('\n')}`,
	);
}
