import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { inBatches } from '../helpers/batching';
import { runConcurrently } from '../helpers/pace';
import { runParameters } from '../helpers/runParameters';
import type { PendingEntry, Settlement } from './batchCreate';
import { DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE } from './batchCreate';
import { DEFAULT_BATCH_CONCURRENCY, DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './requestOptions';
import * as file from './file/File.resource';
import * as registration from './registration/Registration.resource';
import * as serialNumber from './serialNumber/SerialNumber.resource';

/** Works on one input item and returns the output items it gives (getAll gives one per registration found). */
type ItemOperation = (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject | IDataObject[]>;

/** Creates many records per request: each item contributes an entry, entries are sent in batches. */
interface BatchOperation {
	/** The entry one input item contributes; bad input throws a NodeOperationError for that item. */
	toEntry(this: IExecuteFunctions, itemIndex: number): IDataObject;
	/**
	 * Settles, before anything is created, the entries that need no create (e.g. registered already): one settlement
	 * per pending entry, undefined for each entry to create.
	 */
	settleFirst?(this: IExecuteFunctions, pending: PendingEntry[]): Promise<Array<Settlement | undefined>>;
	/** Sends one batch (the entries of these input items) and returns one result per entry, in order. */
	sendBatch(this: IExecuteFunctions, entries: IDataObject[], itemIndexes: number[]): Promise<IDataObject[]>;
}

/** resource -> operation; the names are the values saved in workflows. */
const itemOperations: Record<string, Record<string, ItemOperation>> = {
	registration: {
		update: registration.update.execute,
		updateStatus: registration.updateStatus.execute,
		delete: registration.delete.execute,
		getAll: registration.getAll.execute,
	},
	file: {
		upload: file.upload.execute,
	},
	serialNumber: {
		get: serialNumber.get.execute,
		getUnregistered: serialNumber.getUnregistered.execute,
	},
};

const batchOperations: Record<string, Record<string, BatchOperation>> = {
	registration: {
		create: registration.create,
	},
	serialNumber: {
		create: serialNumber.create,
	},
};

/** An error that n8n shows with the item it belongs to; anything unexpected is wrapped so it names the item too. */
function asItemError(context: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof NodeOperationError || (error as { name?: string })?.name === 'NodeApiError') {
		return error as Error;
	}
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	return { json: { error: error.message }, pairedItem: { item: itemIndex } };
}

/** A whole-number option read once for the run (from item 0), since it shapes how all items are sent. */
function readRunOption(context: IExecuteFunctions, name: string, label: string, fallback: number, max: number): number {
	const value = runParameters(context).get(`options.${name}`, 0, fallback);
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
		throw new NodeOperationError(
			context.getNode(),
			`The ${label} option of item 0 must be a whole number from 1 to ${max}, not ${JSON.stringify(value)}`,
			{ itemIndex: 0 },
		);
	}
	return value;
}

/**
 * Up to Concurrency items at once, each its own request; outputs keep the input order. Without Continue On Fail
 * the failure of the earliest item is the one reported.
 */
async function runPerItem(
	this: IExecuteFunctions,
	execute: ItemOperation,
	itemCount: number,
): Promise<INodeExecutionData[]> {
	const concurrency = readRunOption(this, 'concurrency', 'Concurrency', DEFAULT_CONCURRENCY, MAX_CONCURRENCY);
	const outputs: INodeExecutionData[][] = new Array(itemCount);
	const failures = await runConcurrently(this, itemCount, concurrency, !this.continueOnFail(), async (itemIndex) => {
		const result = await execute.call(this, itemIndex);
		outputs[itemIndex] = (Array.isArray(result) ? result : [result]).map((json) => ({
			json,
			pairedItem: { item: itemIndex },
		}));
	});

	for (const [itemIndex, failure] of failures.entries()) {
		if (failure === undefined) continue;
		const itemError = asItemError(this, failure, itemIndex);
		if (!this.continueOnFail()) throw itemError;
		outputs[itemIndex] = [errorItem(itemError, itemIndex)];
	}
	return outputs.flat();
}

/**
 * Every item's entry is built (and checked) before anything is sent, so bad input fails the run with nothing
 * created. Batches go out up to Concurrency at once; a batch the service refuses fails only its own items, and
 * under Continue On Fail the other batches go on.
 */
async function runBatched(
	this: IExecuteFunctions,
	operation: BatchOperation,
	itemCount: number,
): Promise<INodeExecutionData[]> {
	const batchSize = readRunOption(this, 'batchSize', 'Batch Size', DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE);
	const concurrency = readRunOption(this, 'concurrency', 'Concurrency', DEFAULT_BATCH_CONCURRENCY, MAX_CONCURRENCY);
	const output: INodeExecutionData[] = new Array(itemCount);
	const pending: Array<{ itemIndex: number; entry: IDataObject }> = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			pending.push({ itemIndex, entry: operation.toEntry.call(this, itemIndex) });
		} catch (error) {
			const itemError = asItemError(this, error, itemIndex);
			if (!this.continueOnFail()) throw itemError;
			output[itemIndex] = errorItem(itemError, itemIndex);
		}
	}

	const settlements = (await operation.settleFirst?.call(this, pending)) ?? [];
	const toCreate = pending.filter((_, position) => settlements[position] === undefined);
	const batches = inBatches(toCreate, batchSize);
	const failures = await runConcurrently(
		this,
		batches.length,
		concurrency,
		!this.continueOnFail(),
		async (batchIndex) => {
			const batch = batches[batchIndex];
			const results = await operation.sendBatch.call(
				this,
				batch.map(({ entry }) => entry),
				batch.map(({ itemIndex }) => itemIndex),
			);
			batch.forEach(({ itemIndex }, position) => {
				output[itemIndex] = { json: results[position], pairedItem: { item: itemIndex } };
			});
		},
	);

	const fail = (failure: unknown, itemIndexes: number[]) => {
		const itemError = asItemError(this, failure, itemIndexes[0]);
		if (!this.continueOnFail()) throw itemError;
		for (const itemIndex of itemIndexes) output[itemIndex] = errorItem(itemError, itemIndex);
	};
	for (const [batchIndex, failure] of failures.entries()) {
		if (failure !== undefined)
			fail(
				failure,
				batches[batchIndex].map(({ itemIndex }) => itemIndex),
			);
	}
	settlements.forEach((settlement, position) => {
		const { itemIndex } = pending[position];
		if (settlement === undefined) return;
		if ('error' in settlement) return fail(settlement.error, [itemIndex]);
		// An entry that repeats an earlier one gets that one's result, with the settlement's fields over it.
		const first = 'sameAs' in settlement ? output[settlement.sameAs] : undefined;
		if (first?.json.error !== undefined) output[itemIndex] = { json: first.json, pairedItem: { item: itemIndex } };
		else output[itemIndex] = { json: { ...first?.json, ...settlement.json }, pairedItem: { item: itemIndex } };
	});
	return output;
}

/**
 * Runs the chosen operation over the input items. Continue On Fail and item linking are done here, once: every
 * input item gives its results or, when it fails under Continue On Fail, one error item — always linked to it.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const itemCount = this.getInputData().length;
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;

	const batchOperation = batchOperations[resource]?.[operation];
	if (batchOperation !== undefined) return [await runBatched.call(this, batchOperation, itemCount)];

	const itemOperation = itemOperations[resource]?.[operation];
	if (itemOperation !== undefined) return [await runPerItem.call(this, itemOperation, itemCount)];

	throw new NodeOperationError(
		this.getNode(),
		`The operation "${operation}" of resource "${resource}" is not supported by this version of the node`,
	);
}
