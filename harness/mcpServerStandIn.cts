import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import type { ZodSchema } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';

/**
 * A stand-in for n8n's MCP Server Trigger (`@n8n/n8n-nodes-langchain.mcpTrigger`), so that the engine tests, the demo
 * and the bench can put the node before a model as n8n does without installing n8n's AI nodes. Each input item is one
 * request of an MCP client: `{ method: 'tools/list' }` or `{ method: 'tools/call', name, arguments }`; each output item
 * is what the client gets. The tools are those n8n-core itself makes of the connected tool nodes
 * (getInputConnectionData → create-node-as-tool: name, description, the `$fromAI` arguments' schema), listed and
 * called as the real trigger does on n8n 1.123 (packages/@n8n/nodes-langchain/nodes/mcp/McpTrigger/McpServer.ts):
 * the schema as JSON Schema, a call's answer as the text the tool returned, a failed call as `isError` with its message.
 */

/** A tool as n8n-core makes it of a connected tool node (a LangChain DynamicStructuredTool). */
interface ConnectedTool {
	name: string;
	description: string;
	schema: ZodSchema;
	invoke(input: unknown): Promise<unknown>;
}

export interface McpRequest {
	method: 'tools/list' | 'tools/call';
	name?: string;
	arguments?: IDataObject;
}

async function answer(tools: ConnectedTool[], request: McpRequest): Promise<IDataObject> {
	if (request.method === 'tools/list') {
		return {
			tools: tools.map((tool) => ({
				name: tool.name,
				description: tool.description,
				inputSchema: zodToJsonSchema(tool.schema, { removeAdditionalStrategy: 'strict' }) as IDataObject,
			})),
		};
	}
	const tool = tools.find((candidate) => candidate.name === request.name);
	if (!tool) throw new Error(`The stand-in MCP server has no tool "${request.name}"`);
	try {
		const result = await tool.invoke(request.arguments ?? {});
		return { content: [{ type: 'text', text: typeof result === 'string' ? result : JSON.stringify(result) }] };
	} catch (error) {
		return { isError: true, content: [{ type: 'text', text: `Error: ${(error as Error).message}` }] };
	}
}

export const mcpServerStandIn: INodeType = {
	description: {
		displayName: 'MCP Server Trigger (stand-in)',
		name: 'mcpTrigger',
		group: ['trigger'],
		version: [1, 1.1, 2],
		description: "Answers MCP clients' requests with the connected tools, in place of n8n's MCP Server Trigger",
		defaults: { name: 'MCP Server Trigger' },
		inputs: [{ type: 'ai_tool', displayName: 'Tools' }],
		outputs: ['main'],
		properties: [{ displayName: 'Path', name: 'path', type: 'string', default: '' }],
	},
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const tools = (await this.getInputConnectionData('ai_tool', 0)) as ConnectedTool[];
		const output: INodeExecutionData[] = [];
		for (const [index, item] of this.getInputData().entries()) {
			output.push({ json: await answer(tools, item.json as unknown as McpRequest), pairedItem: { item: index } });
		}
		return [output];
	},
};
