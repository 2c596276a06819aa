import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { mcpServerStandIn } from './mcpServerStandIn.cts';

/**
 * Stand-ins for the n8n nodes the example workflows use (Manual Trigger, Form Trigger, Schedule Trigger, a
 * Code node with sample rows, a Merge by position, If and Filter on simple conditions, a form's ending page, Send
 * Email, the MCP Server Trigger), so the
 * demo can run the examples without installing n8n-nodes-base: each start node passes on the items it is started
 * with, as the real trigger passes on the click's item or the form's submission.
 */
function startNode(name: string, displayName: string, version: number[] = [1, 2, 2.2]): INodeType {
	return {
		description: {
			displayName: `${displayName} (stand-in)`,
			name,
			group: ['trigger'],
			version,
			description: `Passes on the items the run starts with, in place of n8n's ${displayName}`,
			defaults: { name: displayName },
			inputs: [],
			outputs: ['main'],
			properties: [],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return [this.getInputData()];
		},
	};
}

/**
 * A stand-in for n8n's Code node as the examples use it: a sample-data node whose snippet returns a fixed list of
 * items (`return [{ json: ... }, ...]`), standing for a spreadsheet or shop node. It runs the snippet once.
 */
const sampleDataNode: INodeType = {
	description: {
		displayName: 'Code (stand-in)',
		name: 'code',
		group: ['transform'],
		version: [1, 2],
		description: "Returns the items of a sample-data snippet, in place of n8n's Code node",
		defaults: { name: 'Code' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [{ displayName: 'JavaScript', name: 'jsCode', type: 'string', default: '' }],
	},
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const snippet = this.getNodeParameter('jsCode', 0) as string;
		return [new Function(snippet)() as INodeExecutionData[]];
	},
};

/** A stand-in for n8n's Merge node in "Combine by Position" mode: item N of each input becomes one item. */
const mergeByPositionNode: INodeType = {
	description: {
		displayName: 'Merge (stand-in)',
		name: 'merge',
		group: ['transform'],
		version: [3, 3.1, 3.2],
		description: "Combines the items of two inputs by position, in place of n8n's Merge node",
		defaults: { name: 'Merge' },
		inputs: ['main', 'main'],
		outputs: ['main'],
		properties: [],
	},
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const [first, second] = [this.getInputData(0), this.getInputData(1)];
		return [
			first.slice(0, second.length).map((item, index) => ({
				json: { ...item.json, ...second[index].json },
				pairedItem: [
					{ item: index, input: 0 },
					{ item: index, input: 1 },
				],
			})),
		];
	},
};

interface Condition {
	leftValue: unknown;
	rightValue: unknown;
	operator: { operation: string };
}

/** Whether an item meets If's or Filter's conditions (version 2), for the operations the examples use. */
function meets(context: IExecuteFunctions, itemIndex: number): boolean {
	const { conditions, options } = context.getNodeParameter('conditions', itemIndex) as {
		conditions: Condition[];
		options?: { caseSensitive?: boolean };
	};
	const comparable = (value: unknown) =>
		options?.caseSensitive === false ? String(value ?? '').toLowerCase() : String(value ?? '');
	return conditions.every(({ leftValue, rightValue, operator }) => {
		if (operator.operation === 'exists') return leftValue !== undefined && leftValue !== null;
		if (operator.operation === 'notExists') return leftValue === undefined || leftValue === null;
		if (operator.operation === 'equals') return comparable(leftValue) === comparable(rightValue);
		throw new Error(`The stand-in does not know the condition "${operator.operation}"`);
	});
}

function conditionNode(name: string, displayName: string, outputs: number): INodeType {
	return {
		description: {
			displayName: `${displayName} (stand-in)`,
			name,
			group: ['transform'],
			version: [2, 2.1, 2.2],
			description: `Routes items on simple conditions, in place of n8n's ${displayName} node`,
			defaults: { name: displayName },
			inputs: ['main'],
			outputs: Array(outputs).fill('main'),
			properties: [{ displayName: 'Conditions', name: 'conditions', type: 'json', default: {} }],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const routed: INodeExecutionData[][] = [[], []];
			this.getInputData().forEach((item, index) =>
				routed[meets(this, index) ? 0 : 1].push({ ...item, pairedItem: { item: index } }),
			);
			return routed.slice(0, outputs);
		},
	};
}

/** A stand-in for n8n's form ending page: its item says which page the person who sent the form sees. */
const formEndingNode: INodeType = {
	description: {
		displayName: 'n8n Form (stand-in)',
		name: 'form',
		group: ['input'],
		version: [1],
		description: "Shows a form's ending page, in place of n8n's Form node",
		defaults: { name: 'Form' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'Completion Title', name: 'completionTitle', type: 'string', default: '' },
			{ displayName: 'Completion Message', name: 'completionMessage', type: 'string', default: '' },
		],
	},
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((_, index) => ({
				json: {
					page: `${this.getNodeParameter('completionTitle', index)} ${this.getNodeParameter('completionMessage', index)}`,
				},
				pairedItem: { item: index },
			})),
		];
	},
};

/** A stand-in for n8n's Send Email node: its item is the e-mail it would send, its fields resolved. */
const sendEmailNode: INodeType = {
	description: {
		displayName: 'Send Email (stand-in)',
		name: 'emailSend',
		group: ['output'],
		version: [2, 2.1],
		description: "Shows the e-mail it would send, in place of n8n's Send Email node",
		defaults: { name: 'Send Email' },
		inputs: ['main'],
		outputs: ['main'],
		properties: ['fromEmail', 'toEmail', 'subject', 'emailFormat', 'text'].map((name) => ({
			displayName: name,
			name,
			type: 'string' as const,
			default: '',
		})),
	},
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((_, index) => ({
				json: {
					to: this.getNodeParameter('toEmail', index) as string,
					subject: this.getNodeParameter('subject', index) as string,
					text: this.getNodeParameter('text', index) as string,
				},
				pairedItem: { item: index },
			})),
		];
	},
};

export const standInNodeTypes: Record<string, INodeType> = {
	'n8n-nodes-base.emailSend': sendEmailNode,
	'n8n-nodes-base.if': conditionNode('if', 'If', 2),
	'n8n-nodes-base.filter': conditionNode('filter', 'Filter', 1),
	'n8n-nodes-base.form': formEndingNode,
	'n8n-nodes-base.merge': mergeByPositionNode,
	'n8n-nodes-base.manualTrigger': startNode('manualTrigger', 'Manual Trigger'),
	'n8n-nodes-base.formTrigger': startNode('formTrigger', 'Form Trigger'),
	'n8n-nodes-base.scheduleTrigger': startNode('scheduleTrigger', 'Schedule Trigger', [1, 1.1, 1.2, 1.3]),
	'n8n-nodes-base.code': sampleDataNode,
	'@n8n/n8n-nodes-langchain.mcpTrigger': mcpServerStandIn,
};
