import type { INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';

/**
 * The node type n8n makes of a `usableAsTool` node for AI Agents and the MCP Server Trigger, as n8n makes it (n8n
 * 1.123: packages/cli/src/load-nodes-and-credentials.ts, convertNodeToAiTool; n8n 2.40:
 * packages/cli/src/tool-generation/ai-tools.ts; both the same): `<name>Tool`, "<displayName> Tool", no inputs, an
 * `ai_tool` output, and — unless the node has a `toolDescription` parameter of its own — n8n's generic Tool
 * Description fields. It runs the node's own execute.
 */
export function asToolType(nodeType: INodeType): INodeType {
	const { usableAsTool: _usableAsTool, ...plain } = nodeType.description;
	const properties = [...plain.properties];
	const description: INodeTypeDescription = {
		...plain,
		name: `${plain.name}Tool`,
		displayName: `${plain.displayName} Tool`,
		inputs: [],
		outputs: ['ai_tool'],
		properties,
	};
	if (!properties.some(({ name }) => name === 'toolDescription')) {
		const hasOperations = properties.some(({ name }) => name === 'resource' || name === 'operation');
		const toolDescription: INodeProperties = {
			displayName: 'Description',
			name: 'toolDescription',
			type: 'string',
			default: plain.description,
			required: true,
			typeOptions: { rows: 2 },
			...(hasOperations ? { displayOptions: { show: { descriptionType: ['manual'] } } } : {}),
		};
		const descriptionType: INodeProperties = {
			displayName: 'Tool Description',
			name: 'descriptionType',
			type: 'options',
			noDataExpression: true,
			options: [
				{ name: 'Set Automatically', value: 'auto' },
				{ name: 'Set Manually', value: 'manual' },
			],
			default: 'auto',
		};
		properties.unshift(...(hasOperations ? [descriptionType, toolDescription] : [toolDescription]));
	}
	return Object.create(nodeType, { description: { value: description } }) as INodeType;
}
