import type { IExecuteFunctions } from 'n8n-workflow';

import type { IfAlreadyRegistered } from '../../input/runOptions';
import { CREATE_ANYWAY, DEFAULT_CONCURRENCY } from '../../input/runOptions';
import { runConcurrently } from '../../helpers/concurrency';
import { batchSender } from '../batchedCreate';
import type { BatchSender, EntryOutcome, PendingEntry, SendInBatches } from '../operation';
import { decideIfAlreadyRegistered, sendUpdates, unsentOutcome } from './ifAlreadyRegistered/ifAlreadyRegistered';
import { resolvingLostCreates } from './ifAlreadyRegistered/lostCreate';
import { hasFiles, uploadFilesOf, withFilesSent } from './registrationFiles';

const postRegistrations: BatchSender = batchSender('registrations', 'registrations', 'registration');

/**
 * The run's registrations, sent: If Already Registered decides first what is registered already (skipped, updated,
 * or repeating an earlier item); then the files of the registrations to create or update are uploaded — one that
 * exists already uploads nothing, and an item whose file cannot be uploaded fails without being sent; then the
 * updates, and the creates in batches (one POST each), a batch whose answer is lost resolved by a lookup instead of
 * being sent again (its files are not uploaded again).
 */
export async function sendRegistrations(
	this: IExecuteFunctions,
	pending: PendingEntry[],
	inBatches: SendInBatches,
	ifExists: IfAlreadyRegistered,
): Promise<EntryOutcome[]> {
	const decisions = await decideIfAlreadyRegistered.call(this, pending, ifExists);
	const toUpload = pending.flatMap(({ entry }, position) =>
		hasFiles(entry) && ['create', 'update'].includes(decisions[position].kind) ? [position] : [],
	);
	await runConcurrently(toUpload.length, DEFAULT_CONCURRENCY, false, async (index) => {
		const position = toUpload[index];
		const { entry, itemIndex } = pending[position];
		await uploadFilesOf
			.call(this, entry, itemIndex)
			.catch((error: unknown) => (decisions[position] = { kind: 'fail', error }));
	});

	const outcomes: EntryOutcome[] = new Array(pending.length);
	await sendUpdates.call(this, pending, decisions, outcomes);
	const toCreate = decisions.flatMap((decision, position) => (decision.kind === 'create' ? [position] : []));
	const send = ifExists === CREATE_ANYWAY ? postRegistrations : resolvingLostCreates(postRegistrations);
	const created = await inBatches(
		toCreate.map((position) => pending[position]),
		async function sendBatch(this: IExecuteFunctions, entries, itemIndexes) {
			const results = await send.call(this, entries, itemIndexes);
			return results.map((result, position) => withFilesSent(result, entries[position]));
		},
	);
	toCreate.forEach((position, index) => (outcomes[position] = created[index]));
	decisions.forEach((decision, position) => {
		outcomes[position] ??= unsentOutcome(decision, pending, outcomes)!;
	});
	return outcomes;
}
