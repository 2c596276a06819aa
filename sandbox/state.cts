/** An answer other than 200, with the message the service puts in its JSON error body. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}

type Json = Record<string, unknown>;

export interface StatusChange {
	status: string;
	isPublic: boolean;
	note?: string;
	assets?: Array<{ name: string; url: string }>;
	changedAt: string;
}

export interface StoredRegistration {
	id: string;
	formSlug: string | null;
	productName?: string;
	customerEmail?: string;
	customerName?: string;
	serialNumbers: string[];
	purchaseDate?: string;
	customer?: Json;
	/** Extra form fields, keyed as in the form's design. */
	fields: Json;
	status: string | null;
	isPublic: boolean;
	statusHistory: StatusChange[];
	createdAt: string;
}

/** A form of the app, as the real service lists it under GET /api/forms. */
export interface StoredForm {
	name: string;
	slug: string;
	description: string;
}

export interface StoredSerialNumber {
	serialNumber: string;
	sku: string;
	customerTags: string;
	registered: boolean;
	registrationId: string | null;
}

const CORE_FIELDS = ['productName', 'customerEmail', 'customerName', 'serialNumbers', 'purchaseDate'] as const;
const CUSTOMER_FIELDS = [
	'id',
	'firstName',
	'lastName',
	'address1',
	'address2',
	'city',
	'State',
	'country',
	'postCode',
	'phone',
];

function isObject(value: unknown): value is Json {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isCalendarDate(value: string): boolean {
	const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
	if (!match) return false;
	const date = new Date(`${value}T00:00:00Z`);
	return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** Checks the core fields a registration may carry, the way the service's form would; `where` names the entry. */
function checkCoreFields(entry: Json, where: string): void {
	for (const key of ['productName', 'customerEmail', 'customerName'] as const) {
		if (key in entry && typeof entry[key] !== 'string') throw new ApiError(422, `${where}: ${key} must be a string`);
	}
	if ('customerEmail' in entry && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(entry.customerEmail as string)) {
		throw new ApiError(422, `${where}: customerEmail is not a valid email address`);
	}
	if ('serialNumbers' in entry) {
		const serials = entry.serialNumbers;
		if (!Array.isArray(serials) || serials.some((serial) => typeof serial !== 'string' || serial === '')) {
			throw new ApiError(422, `${where}: serialNumbers must be an array of non-empty strings`);
		}
	}
	if ('purchaseDate' in entry && (typeof entry.purchaseDate !== 'string' || !isCalendarDate(entry.purchaseDate))) {
		throw new ApiError(422, `${where}: purchaseDate must be a date shaped YYYY-MM-DD`);
	}
}

/** The service's data: registrations with status history, and the pool of serial numbers. */
export class SandboxState {
	readonly registrations = new Map<string, StoredRegistration>();

	readonly serialNumbers = new Map<string, StoredSerialNumber>();

	/** The app's forms; registrations name theirs by slug as `type`, and go to the default form without one. */
	readonly forms: StoredForm[] = [];

	/** How often each serial number was created: more than once means a client sent the same creation twice. */
	readonly serialCreations = new Map<string, number>();

	private nextRegistrationNumber = 1;

	/** Picks among unregistered serials; tests may make it deterministic. */
	random: () => number = Math.random;

	/** How far the service's clock is ahead of this machine's: tests move time on without waiting. */
	clockAheadMs = 0;

	/** The service's time now. */
	now(): Date {
		return new Date(Date.now() + this.clockAheadMs);
	}

	/**
	 * Stores registrations as the service's form does. `createdAt` (ISO) dates them earlier than now: a registration
	 * that a slow write or a server with its clock behind lists after newer ones.
	 */
	createRegistrations(entries: unknown, createdAt?: string): { registrations: StoredRegistration[] } {
		if (!Array.isArray(entries) || entries.length === 0) {
			throw new ApiError(400, 'registrations must be a non-empty array');
		}
		// Validate the whole call before storing anything: a rejected call creates nothing.
		entries.forEach((entry, index) => {
			const where = `registrations[${index}]`;
			if (!isObject(entry)) throw new ApiError(422, `${where} must be an object`);
			checkCoreFields(entry, where);
			if ('type' in entry && typeof entry.type !== 'string')
				throw new ApiError(422, `${where}: type must be a form slug`);
			if ('customer' in entry) {
				const { customer } = entry;
				if (!isObject(customer)) throw new ApiError(422, `${where}: customer must be an object`);
				const unknown = Object.keys(customer).filter((key) => !CUSTOMER_FIELDS.includes(key));
				if (unknown.length > 0) throw new ApiError(422, `${where}: unknown customer field ${unknown.join(', ')}`);
			}
		});
		const now = createdAt ?? this.now().toISOString();
		const created = (entries as Json[]).map((entry) => this.storeRegistration(entry, now));
		return { registrations: created };
	}

	/**
	 * Registrations made one after another up to now: each a second after the one before, or in batches of `batch` (an
	 * import, a create of several) that share one moment, `apartMs` apart. The entries' order is the order made.
	 */
	registerOverTime(entries: Json[], { batch = 1, apartMs = 1000 } = {}): StoredRegistration[] {
		const batches = Math.ceil(entries.length / batch);
		const registrations: StoredRegistration[] = [];
		for (let index = 0; index < batches; index++) {
			const madeAt = new Date(this.now().getTime() - (batches - 1 - index) * apartMs).toISOString();
			const { registrations: made } = this.createRegistrations(entries.slice(index * batch, (index + 1) * batch), madeAt);
			registrations.push(...made);
		}
		return registrations;
	}

	private storeRegistration(entry: Json, createdAt: string): StoredRegistration {
		const {
			type,
			customer,
			productName,
			customerEmail,
			customerName,
			serialNumbers,
			purchaseDate,
			accessToken,
			...fields
		} = entry;
		const registration: StoredRegistration = {
			id: `R${String(this.nextRegistrationNumber++).padStart(6, '0')}`,
			formSlug: typeof type === 'string' ? type : null,
			productName: productName as string | undefined,
			customerEmail: customerEmail as string | undefined,
			customerName: customerName as string | undefined,
			serialNumbers: (serialNumbers as string[] | undefined) ?? [],
			purchaseDate: purchaseDate as string | undefined,
			customer: customer as Json | undefined,
			fields,
			status: null,
			isPublic: false,
			statusHistory: [],
			createdAt,
		};
		this.registrations.set(registration.id, registration);
		this.markRegistered(registration);
		return registration;
	}

	private markRegistered(registration: StoredRegistration): void {
		for (const serialNumber of registration.serialNumbers) {
			const serial = this.serialNumbers.get(serialNumber);
			if (serial) {
				serial.registered = true;
				serial.registrationId = registration.id;
			}
		}
	}

	/** A registration by its id as stored (`R000050`) or as a dialect with numeric ids lists it (`50`, lists.ts). */
	private getRegistration(id: string): StoredRegistration {
		const registration = this.registrations.get(/^\d+$/.test(id) ? `R${id.padStart(6, '0')}` : id);
		if (!registration) throw new ApiError(404, `Registration ${id} not found`);
		return registration;
	}

	updateRegistration(id: string, changes: unknown): StoredRegistration {
		const registration = this.getRegistration(id);
		if (!isObject(changes)) throw new ApiError(400, 'registration must be an object');
		checkCoreFields(changes, 'registration');
		if ('fields' in changes && !isObject(changes.fields))
			throw new ApiError(422, 'registration: fields must be an object');
		for (const key of CORE_FIELDS) {
			if (key in changes) (registration as unknown as Json)[key] = changes[key];
		}
		Object.assign(registration.fields, changes.fields ?? {});
		this.markRegistered(registration);
		return registration;
	}

	changeStatus(id: string, body: Json): StoredRegistration {
		const registration = this.getRegistration(id);
		const { status, isPublic, note, assets } = body;
		if (typeof status !== 'string' || status === '') throw new ApiError(422, 'status must be a non-empty string');
		if (typeof isPublic !== 'boolean') throw new ApiError(422, 'isPublic must be a boolean');
		if (note !== undefined && typeof note !== 'string') throw new ApiError(422, 'note must be a string');
		if (
			assets !== undefined &&
			(!Array.isArray(assets) ||
				assets.some((asset) => !isObject(asset) || typeof asset.name !== 'string' || typeof asset.url !== 'string'))
		) {
			throw new ApiError(422, 'assets must be an array of objects with name and url');
		}
		const change: StatusChange = { status, isPublic, changedAt: this.now().toISOString() };
		if (note !== undefined) change.note = note;
		if (assets !== undefined) change.assets = assets as StatusChange['assets'];
		registration.status = status;
		registration.isPublic = isPublic;
		registration.statusHistory.push(change);
		return registration;
	}

	deleteRegistration(id: string): { id: string; deleted: true } {
		this.registrations.delete(this.getRegistration(id).id);
		return { id, deleted: true };
	}

	/** The registrations a list query matches (email, customerId, formSlug), the last stored first. */
	matchingRegistrations(query: Record<string, string>): StoredRegistration[] {
		return [...this.registrations.values()]
			.filter(
				(registration) =>
					(query.email === undefined || registration.customerEmail === query.email) &&
					(query.customerId === undefined || String(registration.customer?.id) === query.customerId) &&
					(query.formSlug === undefined || registration.formSlug === query.formSlug),
			)
			.reverse();
	}

	createSerialNumbers(entries: unknown): { serialNumbers: StoredSerialNumber[] } {
		if (!Array.isArray(entries) || entries.length === 0) {
			throw new ApiError(400, 'serialNumbers must be a non-empty array');
		}
		entries.forEach((entry, index) => {
			const where = `serialNumbers[${index}]`;
			if (!isObject(entry)) throw new ApiError(422, `${where} must be an object`);
			if (typeof entry.serialNumber !== 'string' || entry.serialNumber === '') {
				throw new ApiError(422, `${where}: serialNumber must be a non-empty string`);
			}
			for (const key of ['sku', 'customerTags']) {
				if (key in entry && typeof entry[key] !== 'string')
					throw new ApiError(422, `${where}: ${key} must be a string`);
			}
		});
		const created = (entries as Json[]).map((entry) => {
			const serial: StoredSerialNumber = {
				serialNumber: entry.serialNumber as string,
				sku: (entry.sku as string | undefined) ?? '',
				customerTags: (entry.customerTags as string | undefined) ?? '',
				registered: false,
				registrationId: null,
			};
			this.serialNumbers.set(serial.serialNumber, serial);
			this.serialCreations.set(serial.serialNumber, (this.serialCreations.get(serial.serialNumber) ?? 0) + 1);
			return serial;
		});
		return { serialNumbers: created };
	}

	randomUnregisteredSerial(): StoredSerialNumber | undefined {
		const pool = [...this.serialNumbers.values()].filter((serial) => !serial.registered);
		return pool.length === 0 ? undefined : pool[Math.floor(this.random() * pool.length)];
	}

	findSerial(serialNumber: string): StoredSerialNumber | undefined {
		return this.serialNumbers.get(serialNumber);
	}
}
