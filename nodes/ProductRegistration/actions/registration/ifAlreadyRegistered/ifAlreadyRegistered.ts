import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { runConcurrently } from '../../../helpers/concurrency';
import { sameRegistration } from '../../../../shared/registrations';
import type { IfAlreadyRegistered } from '../../../input/runOptions';
import { CREATE_ANYWAY, DEFAULT_CONCURRENCY, requestFor, SKIP, UPDATE } from '../../../input/runOptions';
import { forItem } from '../../../input/itemInput';
import { serviceRequest } from '../../../../shared/transport/serviceRequest';
import type { EntryOutcome, PendingEntry } from '../../operation';
import { CORE_KEYS } from '../registrationFields';
import { registrationTarget } from '../registrationLocator';
import { hasFiles, withFilesSent } from '../registrationFiles';
import type { Customer } from './existingRegistrations';
import { asRegistration, customerKey, findExisting, findSame } from './existingRegistrations';

/**
 * If Already Registered (Registration → Create): a scheduled import of the same sheet registers nothing twice. Before
 * anything is created, what the service holds for the run's customers is read (existingRegistrations.ts: per email,
 * or one listing of the form, whichever takes fewer requests); an item whose registration is listed there (same
 * product name, and a serial number in common when both have serial numbers) is skipped or updated, and of items of
 * the run that match each other only the first is handled. A create whose answer is lost is resolved by the same
 * lookup (lostCreate.ts).
 */

export const ifExistsOption: INodeProperties = {
	displayName: 'If Already Registered',
	name: 'ifExists',
	type: 'options',
	options: [
		{
			name: 'Create Anyway',
			value: CREATE_ANYWAY,
			description: 'Create every item, without looking anything up',
		},
		{
			name: 'Skip',
			value: SKIP,
			description: 'Create only what the service does not hold yet; the others come out as skipped',
		},
		{
			name: 'Update',
			value: UPDATE,
			description: 'Create what the service does not hold yet, and update the registrations it holds',
		},
	],
	default: CREATE_ANYWAY,
	description:
		'Registered means the service lists one for the customer email with the same product name (case and spaces ignored) and, if both have serial numbers, one in common. Skip and Update say each outcome. Defaults to Create Anyway.',
};

/** The body of Update for an entry of Create: its standard fields, and its extra form fields under `fields`. */
function updateOf(entry: IDataObject): IDataObject {
	const registration: IDataObject = {};
	const fields: IDataObject = {};
	for (const [key, value] of Object.entries(entry)) {
		if (CORE_KEYS.includes(key)) registration[key] = value;
		else if (key !== 'type' && key !== 'customer') fields[key] = value;
	}
	if (Object.keys(fields).length > 0) registration.fields = fields;
	return registration;
}

function sameValue(a: unknown, b: unknown): boolean {
	if (Array.isArray(a) && Array.isArray(b))
		return JSON.stringify([...a].map(String).sort()) === JSON.stringify([...b].map(String).sort());
	return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether the listed registration already holds every value the update would send (unknown ones count as changed). */
function holdsAlready(update: IDataObject, record: IDataObject): boolean {
	const { fields, ...core } = update;
	// The real service lists extra fields under `fieldData`; the API page shows no list shape.
	const listedFields = (record.fieldData ?? record.fields ?? {}) as IDataObject;
	return (
		Object.entries(core).every(([key, value]) => sameValue(value, record[key])) &&
		Object.entries((fields ?? {}) as IDataObject).every(([key, value]) =>
			sameValue(value, listedFields[key] ?? record[key]),
		)
	);
}

/** What If Already Registered decided for an entry of the run. */
export type Decision =
	| { kind: 'create' }
	| { kind: 'update'; registrationId: string }
	/** Listed already, as `record`. */
	| { kind: 'skip'; record: IDataObject }
	/** Repeats the entry at position `of`, earlier in the run. */
	| { kind: 'repeat'; of: number }
	| { kind: 'fail'; error: unknown };

/**
 * With Skip or Update: each entry the service holds already is skipped or updated (an entry with files always is
 * updated: they are new), and each entry that repeats an earlier one of the run is skipped. With Create Anyway
 * nothing is looked up and every entry is created.
 */
export async function decideIfAlreadyRegistered(
	this: IExecuteFunctions,
	pending: PendingEntry[],
	mode: IfAlreadyRegistered,
): Promise<Decision[]> {
	const decisions: Decision[] = pending.map(() => ({ kind: 'create' }));
	if (mode === CREATE_ANYWAY) return decisions;

	// Of entries of this run that match each other, the first is handled; the later ones repeat it.
	const customers = new Map<string, Customer>();
	const handled: number[] = [];
	pending.forEach((candidate, position) => {
		const key = customerKey(candidate.entry);
		let customer = customers.get(key);
		if (customer === undefined) {
			customer = {
				email: String(candidate.entry.customerEmail),
				formSlug: candidate.entry.type as string | undefined,
				firstItemIndex: candidate.itemIndex,
				distinct: [],
			};
			customers.set(key, customer);
		}
		const repeated = customer.distinct.find(({ entry }) =>
			sameRegistration(asRegistration(entry), asRegistration(candidate.entry)),
		);
		if (repeated) {
			decisions[position] = { kind: 'repeat', of: repeated.position };
			return;
		}
		customer.distinct.push({ ...candidate, position });
		handled.push(position);
	});

	await findExisting.call(this, [...customers.values()]);

	for (const position of handled) {
		const { entry, itemIndex } = pending[position];
		const listed = customers.get(customerKey(entry))!.listed!;
		if ('error' in listed) {
			decisions[position] = { kind: 'fail', error: listed.error };
			continue;
		}
		const same = findSame(listed.existing, entry);
		if (same === undefined) {
			// Not in a list that came back short: it may be among what is missing, so it is not created blindly.
			if (listed.incomplete !== undefined) {
				const message = forItem(
					`${listed.incomplete}, so it is not known whether the item is registered already; nothing was sent for it. Run it again`,
					itemIndex,
				);
				decisions[position] = {
					kind: 'fail',
					error: new NodeApiError(this.getNode(), { message }, { message, itemIndex }),
				};
			}
			continue;
		}
		if (mode === SKIP || (!hasFiles(entry) && holdsAlready(updateOf(entry), same.record))) {
			decisions[position] = { kind: 'skip', record: same.record };
		} else if (same.listed.id === undefined) {
			const message = forItem(
				'The service lists a registration for the item but without an id, so it cannot be updated',
				itemIndex,
			);
			decisions[position] = {
				kind: 'fail',
				error: new NodeApiError(this.getNode(), { message }, { message, itemIndex }),
			};
		} else {
			decisions[position] = { kind: 'update', registrationId: same.listed.id };
		}
	}
	return decisions;
}

/** Sends the decided updates (PUT /api/registrations/:regId), up to the per-item concurrency at once. */
export async function sendUpdates(
	this: IExecuteFunctions,
	pending: PendingEntry[],
	decisions: Decision[],
	outcomes: EntryOutcome[],
): Promise<void> {
	const updates = decisions.flatMap((decision, position) => (decision.kind === 'update' ? [position] : []));
	await runConcurrently(updates.length, DEFAULT_CONCURRENCY, false, async (index) => {
		const position = updates[index];
		const { registrationId } = decisions[position] as { registrationId: string };
		const { entry, itemIndex } = pending[position];
		const registration = updateOf(entry);
		try {
			const { body } = await serviceRequest.call(
				this,
				{ method: 'PUT', ...registrationTarget(registrationId), body: { registration } },
				requestFor(this, itemIndex),
			);
			const answer =
				body !== null && typeof body === 'object' && !Array.isArray(body)
					? (body as IDataObject)
					: { id: registrationId, ...registration };
			outcomes[position] = { json: withFilesSent({ outcome: 'updated', ...answer }, entry) };
		} catch (error) {
			outcomes[position] = { error };
		}
	});
}

/**
 * The outcome of an entry that sent nothing: skipped, failed, or repeating an earlier entry of the run — which
 * comes out as that entry's result, saying so, or as its failure.
 */
export function unsentOutcome(
	decision: Decision,
	pending: PendingEntry[],
	outcomes: EntryOutcome[],
): EntryOutcome | undefined {
	if (decision.kind === 'skip') return { json: { outcome: 'skipped', ...decision.record } };
	if (decision.kind === 'fail') return { error: decision.error };
	if (decision.kind !== 'repeat') return undefined;
	const first = outcomes[decision.of];
	if ('error' in first) return first;
	return { json: { ...first.json, outcome: 'skipped', repeatsItem: pending[decision.of].itemIndex } };
}
