import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

/**
 * Stand-ins for the n8n-nodes-base nodes the example workflows use (Manual Trigger, Form Trigger, Schedule Trigger, a
 * Code node with sample rows, a Merge by position), so the demo can run the examples without installing n8n-nodes-base: each start node passes on the
 * items it is started with, as the real trigger passes on the click's item or the form's submission.
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

export const standInNodeTypes: Record<string, INodeType> = {
	'n8n-nodes-base.merge': mergeByPositionNode,
	'n8n-nodes-base.manualTrigger': startNode('manualTrigger', 'Manual Trigger'),
	'n8n-nodes-base.formTrigger': startNode('formTrigger', 'Form Trigger'),
	'n8n-nodes-base.scheduleTrigger': startNode('scheduleTrigger', 'Schedule Trigger', [1, 1.1, 1.2, 1.3]),
	'n8n-nodes-base.code': sampleDataNode,
};
