import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { ListedRegistration } from '../../helpers/listedRegistration';
import { readListedRegistration } from '../../helpers/listedRegistration';
import { readList, shortfall } from '../../transport/pagedList';

/** A registration the service lists for a customer e-mail. */
export interface ExistingRegistration {
	/** What the matching rule reads of it. */
	listed: ListedRegistration;
	/** The registration as the service listed it, for the output. */
	record: IDataObject;
}

/**
 * What the service lists for one e-mail. When the list came back short of what the service said it holds, a
 * registration missing from it may still exist: `unsure` says why, and only a match in the list can be trusted.
 */
export interface Registrations {
	existing: ExistingRegistration[];
	unsure?: string;
}

/**
 * The registrations the service holds for an e-mail (GET /api/registrations?email=), every page of them. An answer
 * that does not read as registrations with product names is an error, never a guess: a wrong guess would create a
 * registration twice or skip a new one.
 */
export async function registrationsOf(
	this: IExecuteFunctions,
	email: string,
	itemIndex: number,
): Promise<Registrations> {
	const what = `registrations for ${email}`;
	const list = await readList.call(
		this,
		{ path: 'registrations', qs: { email }, resourceKey: 'registrations', what },
		itemIndex,
	);
	const unreadable = (why: string) => {
		const message = `The service's list of ${what} could not be read (${why}), so it is not known whether item ${itemIndex} is registered already; nothing was sent for it`;
		return new NodeApiError(this.getNode(), { message }, { message, itemIndex });
	};
	if (list.notAList) throw unreadable('the answer is not a list');
	const existing = list.records.map((record) => {
		const listed = readListedRegistration(record);
		if (listed.productName === undefined) throw unreadable('an entry has no productName');
		return { listed, record };
	});
	return { existing, unsure: list.complete ? undefined : shortfall(list, what) };
}
