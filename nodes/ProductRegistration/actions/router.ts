import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as registration from './registration/Registration.resource';

/** Works on one input item and returns the output items it gives (getAll gives one per registration found). */
type ItemOperation = (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject | IDataObject[]>;

/** resource -> operation -> implementation; the names are the values saved in workflows. */
const itemOperations: Record<string, Record<string, ItemOperation>> = {
	registration: {
		getAll: registration.getAll.execute,
	},
};

/** An error that n8n shows with the item it belongs to; anything unexpected is wrapped so it names the item too. */
function asItemError(this: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof NodeOperationError || (error as { name?: string })?.name === 'NodeApiError') {
		return error as Error;
	}
	return new NodeOperationError(this.getNode(), error as Error, { itemIndex });
}

/**
 * Runs the chosen operation for every input item. Continue On Fail and item linking live here, once: every input
 * item gives its results or, when it fails under Continue On Fail, one error item — always linked to it.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const execute = itemOperations[resource]?.[operation];
	if (execute === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of resource "${resource}" is not supported by this version of the node`,
		);
	}

	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const result = await execute.call(this, itemIndex);
			for (const json of Array.isArray(result) ? result : [result]) {
				returnData.push({ json, pairedItem: { item: itemIndex } });
			}
		} catch (error) {
			const itemError = asItemError.call(this, error, itemIndex);
			if (!this.continueOnFail()) throw itemError;
			returnData.push({ json: { error: itemError.message }, pairedItem: { item: itemIndex } });
		}
	}
	return [returnData];
}
