import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { batchesOf } from '../helpers/batching';
import { runConcurrently } from '../helpers/concurrency';
import { DEFAULT_BATCH_CONCURRENCY, DEFAULT_CONCURRENCY, readBatchSize, readConcurrency } from '../input/runOptions';
import type { BatchedOperation, EntryOutcome, PendingEntry, PerItemOperation, SendInBatches } from './operation';
import { answerItems } from './toolAnswer';

/**
 * Runs an operation over the input items, in the shape its module declares. Continue On Fail and item linking are
 * done here, once: every input item gives its results or, when it fails under Continue On Fail, one error item —
 * always linked to it. What a model gets when the node is used as a tool is shaped here too (toolAnswer.ts).
 */

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

/**
 * Up to Concurrency items at once, each its own request; outputs keep the input order. Without Continue On Fail
 * the failure of the earliest item is the one reported.
 */
export async function runPerItem(
	this: IExecuteFunctions,
	{ execute, answers }: PerItemOperation,
): Promise<INodeExecutionData[]> {
	const itemCount = this.getInputData().length;
	const concurrency = readConcurrency(this, DEFAULT_CONCURRENCY);
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
 * created. The operation sends the entries, in batches up to Concurrency at once; a batch the service refuses fails
 * only its own items, and under Continue On Fail the other batches go on.
 */
export async function runInBatches(
	this: IExecuteFunctions,
	{ execute, answers }: BatchedOperation,
): Promise<INodeExecutionData[]> {
	const itemCount = this.getInputData().length;
	const batchSize = readBatchSize(this);
	const concurrency = readConcurrency(this, DEFAULT_BATCH_CONCURRENCY);
	const output: INodeExecutionData[] = new Array(itemCount);
	const failed = new Set<number>();
	const fail = (failure: unknown, itemIndexes: number[]): Error => {
		const itemError = asItemError(this, failure, itemIndexes[0]);
		if (!this.continueOnFail()) throw itemError;
		for (const itemIndex of itemIndexes) {
			output[itemIndex] = errorItem(itemError, itemIndex);
			failed.add(itemIndex);
		}
		return itemError;
	};

	const pending: PendingEntry[] = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			pending.push({ itemIndex, entry: execute.entry.call(this, itemIndex) });
		} catch (error) {
			fail(error, [itemIndex]);
		}
	}

	const inBatches: SendInBatches = async (entries, sendBatch) => {
		const outcomes: EntryOutcome[] = new Array(entries.length);
		const batches = batchesOf(
			entries.map((_, position) => position),
			batchSize,
		);
		const failures = await runConcurrently(batches.length, concurrency, !this.continueOnFail(), async (index) => {
			const positions = batches[index];
			const results = await sendBatch.call(
				this,
				positions.map((position) => entries[position].entry),
				positions.map((position) => entries[position].itemIndex),
			);
			positions.forEach((position, inBatch) => (outcomes[position] = { json: results[inBatch] }));
		});
		for (const [index, failure] of failures.entries()) {
			if (failure === undefined) continue;
			const positions = batches[index];
			const error = fail(
				failure,
				positions.map((position) => entries[position].itemIndex),
			);
			for (const position of positions) outcomes[position] = { error };
		}
		return outcomes;
	};
	const outcomes = await execute.send.call(this, pending, inBatches);

	outcomes.forEach((outcome, position) => {
		const { itemIndex } = pending[position];
		if (failed.has(itemIndex)) return;
		if ('error' in outcome) fail(outcome.error, [itemIndex]);
		else output[itemIndex] = { json: outcome.json, pairedItem: { item: itemIndex } };
	});
	// Shaped for a model only now: an entry that repeats another takes that one's result as the service gave it.
	const answer = answerItems(this, answers);
	return output.map((item, itemIndex) => (failed.has(itemIndex) ? item : { ...item, json: answer(item.json)[0] }));
}
