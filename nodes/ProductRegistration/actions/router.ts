import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as file from './file/File.resource';
import type { Operation, Resource } from './operation';
import * as registration from './registration/Registration.resource';
import { runInBatches, runPerItem } from './runItems';
import * as serialNumber from './serialNumber/SerialNumber.resource';

/** Every resource by the value saved in workflows; each lists its own operations. */
export const resources: Record<string, Resource> = { file, registration, serialNumber };

function operationOf(resource: string, operation: string): Operation | undefined {
	const operations = Object.hasOwn(resources, resource) ? resources[resource].operations : {};
	return Object.hasOwn(operations, operation) ? operations[operation] : undefined;
}

/** Runs the operation chosen in the editor over the input items, in the shape the operation declares. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = operationOf(resource, operationName);
	if (operation === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operationName}" of resource "${resource}" is not supported by this version of the node`,
		);
	}
	if (operation.runs === 'inBatches') return [await runInBatches.call(this, operation)];
	return [await runPerItem.call(this, operation)];
}
