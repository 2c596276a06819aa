import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { inBatches } from '../helpers/batching';
import { ItemInput } from '../helpers/itemInput';
import { runConcurrently } from '../helpers/concurrency';
import { runParameters } from '../helpers/runParameters';
import { wholeNumber } from '../helpers/values';
import type { BatchedOperation, PendingEntry, PerItemOperation } from './operation';
import { answerItems } from './toolAnswer';

/**
 * Runs an operation over the input items, in the shape its module declares. Continue On Fail and item linking are
 * done here, once: every input item gives its results or, when it fails under Continue On Fail, one error item —
 * always linked to it. What a model gets when the node is used as a tool is shaped here too (toolAnswer.ts).
 */

/** Items in flight at once for operations that send one request per item (the service's pace may allow fewer). */
export const DEFAULT_CONCURRENCY = 50;
export const MAX_CONCURRENCY = 100;
/** Batches of a create in flight at once: each carries up to Batch Size records, so fewer than single requests. */
export const DEFAULT_BATCH_CONCURRENCY = 4;
/** The API takes many records in one POST (its maximum is not documented); 100 keeps each request modest. */
export const DEFAULT_BATCH_SIZE = 100;
export const MAX_BATCH_SIZE = 1000;

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
function runOption(context: IExecuteFunctions, name: string, label: string, fallback: number, max: number): number {
	const value = runParameters(context).get(`options.${name}`, 0, fallback);
	return new ItemInput(context, 0).convert(value, `${label} option`, wholeNumber(1, max));
}

/**
 * Up to Concurrency items at once, each its own request; outputs keep the input order. Without Continue On Fail
 * the failure of the earliest item is the one reported.
 */
export async function runPerItem(
	this: IExecuteFunctions,
	{ execute, answers }: PerItemOperation,
): Promise<INodeExecutionData[]> {
	const itemCount = this.getInputData().length;
	const concurrency = runOption(this, 'concurrency', 'Concurrency', DEFAULT_CONCURRENCY, MAX_CONCURRENCY);
	const answer = answerItems(this, answers);
	const outputs: INodeExecutionData[][] = new Array(itemCount);
	const failures = await runConcurrently(itemCount, concurrency, !this.continueOnFail(), async (itemIndex) => {
		const result = await execute.call(this, itemIndex);
		outputs[itemIndex] = answer(result).map((json) => ({
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
export async function runInBatches(
	this: IExecuteFunctions,
	{ execute, answers }: BatchedOperation,
): Promise<INodeExecutionData[]> {
	const itemCount = this.getInputData().length;
	const batchSize = runOption(this, 'batchSize', 'Batch Size', DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE);
	const concurrency = runOption(this, 'concurrency', 'Concurrency', DEFAULT_BATCH_CONCURRENCY, MAX_CONCURRENCY);
	const output: INodeExecutionData[] = new Array(itemCount);
	const failed = new Set<number>();
	const fail = (failure: unknown, itemIndexes: number[]) => {
		const itemError = asItemError(this, failure, itemIndexes[0]);
		if (!this.continueOnFail()) throw itemError;
		for (const itemIndex of itemIndexes) {
			output[itemIndex] = errorItem(itemError, itemIndex);
			failed.add(itemIndex);
		}
	};

	const pending: PendingEntry[] = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			pending.push({ itemIndex, entry: execute.entry.call(this, itemIndex) });
		} catch (error) {
			fail(error, [itemIndex]);
		}
	}

	const settlements = (await execute.settle?.call(this, pending)) ?? [];
	const batches = inBatches(
		pending.filter((_, position) => settlements[position] === undefined),
		batchSize,
	);
	const failures = await runConcurrently(batches.length, concurrency, !this.continueOnFail(), async (index) => {
		const batch = batches[index];
		const itemIndexes = batch.map(({ itemIndex }) => itemIndex);
		const results = await execute.send.call(
			this,
			batch.map(({ entry }) => entry),
			itemIndexes,
		);
		itemIndexes.forEach((itemIndex, position) => {
			output[itemIndex] = { json: results[position], pairedItem: { item: itemIndex } };
		});
	});
	for (const [index, failure] of failures.entries()) {
		if (failure !== undefined)
			fail(
				failure,
				batches[index].map(({ itemIndex }) => itemIndex),
			);
	}

	settlements.forEach((settlement, position) => {
		const { itemIndex } = pending[position];
		if (settlement === undefined) return;
		if ('error' in settlement) return fail(settlement.error, [itemIndex]);
		// An entry that repeats an earlier one gets that one's result, with the settlement's fields over it.
		const first: IDataObject | undefined = 'sameAs' in settlement ? output[settlement.sameAs]?.json : undefined;
		const json = first?.error !== undefined ? first : { ...first, ...settlement.json };
		output[itemIndex] = { json, pairedItem: { item: itemIndex } };
	});
	// Shaped for a model only now: an entry that repeats another takes that one's result as the service gave it.
	const answer = answerItems(this, answers);
	return output.map((item, itemIndex) => (failed.has(itemIndex) ? item : { ...item, json: answer(item.json)[0] }));
}
