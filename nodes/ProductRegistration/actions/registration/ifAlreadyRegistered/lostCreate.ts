import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { requestFor } from '../../../input/runOptions';
import { UnknownOutcome } from '../../../../shared/transport/serviceRequest';
import type { BatchSender } from '../../operation';
import type { Registrations } from './existingRegistrations';
import { customerKey, findSame, registrationsOf } from './existingRegistrations';

/**
 * With If Already Registered (Skip or Update), a create whose answer was lost — the connection dropped after sending,
 * the Timeout passed, a proxy answered HTML — is not left as an unknown outcome: the emails of its entries are
 * looked up, the entries found there are created, and the others are sent again, counting against Retries. If a
 * lookup fails too, the unknown outcome stands.
 */
export function resolvingLostCreates(send: BatchSender): BatchSender {
	return async function sendResolvingLostCreates(this: IExecuteFunctions, entries, itemIndexes) {
		const results: IDataObject[] = new Array(entries.length);
		let open = entries.map((_, position) => position);
		const { maxRetries } = requestFor(this, itemIndexes[0]).policy;
		for (let attempt = 1; ; attempt++) {
			const sent = await send
				.call(
					this,
					open.map((position) => entries[position]),
					open.map((position) => itemIndexes[position]),
				)
				.then(
					(created) => ({ created }),
					(error: unknown) => ({ error }),
				);
			if ('created' in sent) {
				open.forEach((position, index) => (results[position] = { outcome: 'created', ...sent.created[index] }));
				return results;
			}
			if (!(sent.error instanceof UnknownOutcome)) throw sent.error;
			const notFound = await stillToCreate.call(this, entries, itemIndexes, open, results).catch(() => undefined);
			// A failed lookup leaves the outcome unknown, as without If Already Registered.
			if (notFound === undefined) throw sent.error;
			open = notFound;
			if (open.length === 0) return results;
			if (attempt > maxRetries) throw sent.error;
		}
	};
}

/** The entries (positions) not found at the service after a lost create; those found get their result. */
async function stillToCreate(
	this: IExecuteFunctions,
	entries: IDataObject[],
	itemIndexes: number[],
	open: number[],
	results: IDataObject[],
): Promise<number[]> {
	const listedByCustomer = new Map<string, Registrations>();
	for (const position of open) {
		const key = customerKey(entries[position]);
		if (!listedByCustomer.has(key)) {
			const { customerEmail, type } = entries[position];
			const listed = await registrationsOf.call(
				this,
				String(customerEmail),
				type as string | undefined,
				itemIndexes[position],
			);
			listedByCustomer.set(key, listed);
		}
	}
	return open.filter((position) => {
		const listed = listedByCustomer.get(customerKey(entries[position]))!;
		const found = findSame(listed.existing, entries[position]);
		// Missing from a list that came back short is no proof it was not created: the outcome stays unknown.
		if (found === undefined && listed.incomplete !== undefined) throw new Error(listed.incomplete);
		if (found) results[position] = { outcome: 'created', ...found.record };
		return found === undefined;
	});
}
