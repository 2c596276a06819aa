import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

/**
 * Stand-ins for the n8n-nodes-base start nodes the example workflows begin with (Manual Trigger, Form Trigger), so
 * the demo can run the examples without installing n8n-nodes-base: each passes on the items it is started with,
 * as the real trigger passes on the click's item or the form's submission.
 */
function startNode(name: string, displayName: string): INodeType {
	return {
		description: {
			displayName: `${displayName} (stand-in)`,
			name,
			group: ['trigger'],
			version: [1, 2, 2.2],
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

export const standInNodeTypes: Record<string, INodeType> = {
	'n8n-nodes-base.manualTrigger': startNode('manualTrigger', 'Manual Trigger'),
	'n8n-nodes-base.formTrigger': startNode('formTrigger', 'Form Trigger'),
};
