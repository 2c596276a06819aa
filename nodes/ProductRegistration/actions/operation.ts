import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/**
 * What every operation module exports: its editor `description`, its `execute`, and `runs`, which says the shape of
 * that execute. The router looks operations up in the resources' `operations` maps; runItems.ts runs each shape.
 */
export type Operation = PerItemOperation | BatchedOperation;

/** Sends its own request(s) for each input item: Update, Change Status, Delete, Get Many, Get, Upload, ... */
export interface PerItemOperation {
	runs: 'perItem';
	description: INodeProperties[];
	execute: ItemExecute;
	answers?: Answers;
}

/** Creates many records per request: each input item gives an entry, and the entries are sent in batches. */
export interface BatchedOperation {
	runs: 'inBatches';
	description: INodeProperties[];
	execute: BatchExecute;
	answers?: Answers;
}

/** What the results of an operation are, when a model is to get them compact (toolAnswer.ts): registrations. */
export type Answers = 'registrations';

/**
 * Works on one input item; returns its output items' JSON: one object, or a list read from the service (Get Many),
 * which gives one output item per record.
 */
export type ItemExecute = (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject | RecordList>;

/** Records read from a list of the service: those to give, and what is known of the rest. */
export class RecordList {
	constructor(
		readonly records: IDataObject[],
		/** How many the service holds that match, when it says. */
		readonly total: number | undefined,
		/** Whether more match than `records` holds (known without a total too). */
		readonly more: boolean,
		/** Why the list may not hold every record, in words (see listReader.ts). */
		readonly gap: string | undefined,
	) {}
}

export interface BatchExecute {
	/** The entry an input item contributes; bad input throws a NodeOperationError naming the item. */
	entry(this: IExecuteFunctions, itemIndex: number): IDataObject;
	/**
	 * Sends the run's entries and gives each its outcome, in order. `inBatches` sends entries with a batch sender in
	 * batches of the run's Batch Size, up to its Concurrency at once; an operation may first settle entries that need
	 * no create, or send some otherwise.
	 */
	send(this: IExecuteFunctions, pending: PendingEntry[], inBatches: SendInBatches): Promise<EntryOutcome[]>;
}

/** Sends one batch (the entries of these input items) and returns one result per entry, in order. */
export type BatchSender = (
	this: IExecuteFunctions,
	entries: IDataObject[],
	itemIndexes: number[],
) => Promise<IDataObject[]>;

export type SendInBatches = (pending: PendingEntry[], sendBatch: BatchSender) => Promise<EntryOutcome[]>;

/** An input item's entry, waiting to be sent. */
export interface PendingEntry {
	itemIndex: number;
	entry: IDataObject;
}

/** What came of an entry: its output JSON, or the failure of its item. */
export type EntryOutcome = { json: IDataObject } | { error: unknown };

/** A resource module: its operations by the value saved in workflows. */
export interface Resource {
	operations: Record<string, Operation>;
}
