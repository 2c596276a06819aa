import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import {
	createdAtOf,
	customerEmailOf,
	readCreatedAt,
	registrationIdOf,
} from '../../nodes/shared/registrations';

/**
 * Every key of a listed registration that decides what the node does — its id, its e-mail, when it was made — is read
 * by one function, in one place (nodes/shared/registrations.ts), in each form the API page leaves open.
 */

const nodes = join(__dirname, '..', '..', 'nodes');
const READERS = 'shared/registrations.ts';

function sources(folder: string): string[] {
	return readdirSync(folder).flatMap((name) => {
		const path = join(folder, name);
		if (statSync(path).isDirectory()) return sources(path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

test('no shipped file but the readers reads a listed record’s id, e-mail or createdAt itself', () => {
	const direct = /\.(createdAt|regId|registrationId)\b|\brecord\.(id|customerEmail)\b/;
	const offenders = sources(nodes)
		.filter((path) => relative(nodes, path) !== READERS)
		.flatMap((path) =>
			readFileSync(path, 'utf8')
				.split('\n')
				.map((line, index) => `${relative(nodes, path)}:${index + 1}: ${line.trim()}`)
				.filter((line) => direct.test(line.replace(/\/\/.*|\/\*.*|^\s*\*.*/, ''))),
		);
	expect(offenders).toEqual([]);
});

test.each([
	[{ id: 'R1' }, 'R1'],
	[{ id: 42 }, '42'],
	[{ regId: 'R2' }, 'R2'],
	[{ registrationId: 7 }, '7'],
	[{ id: ' ' }, undefined],
	[{}, undefined],
])('the id of %j is %p', (record, id) => {
	expect(registrationIdOf(record)).toBe(id);
});

test.each([
	['2026-11-25T10:00:00.250Z', Date.UTC(2026, 10, 25, 10, 0, 0, 250), true],
	['2026-11-25T10:00:00Z', Date.UTC(2026, 10, 25, 10), true],
	['2026-11-25T12:00:00+02:00', Date.UTC(2026, 10, 25, 10), true],
	['2026-11-25T10:00:00', Date.UTC(2026, 10, 25, 10), false],
	['2026-11-25 10:00', Date.UTC(2026, 10, 25, 10), false],
	[Date.UTC(2026, 10, 25, 10), Date.UTC(2026, 10, 25, 10), true],
	[String(Date.UTC(2026, 10, 25, 10)), Date.UTC(2026, 10, 25, 10), true],
	[Date.UTC(2026, 10, 25, 10) / 1000, Date.UTC(2026, 10, 25, 10), true],
])('createdAt %p is %p (zone named: %p)', (createdAt, time, zoned) => {
	expect(readCreatedAt({ createdAt })).toEqual({ time, zoned });
	expect(createdAtOf({ createdAt })).toBe(time);
});

test.each([[undefined], [''], ['yesterday'], [null]])('createdAt %p is not a time', (createdAt) => {
	expect(createdAtOf({ createdAt })).toBeUndefined();
});

test('the e-mail is read as listed, trimmed', () => {
	expect(customerEmailOf({ customerEmail: ' Ann@Example.com ' })).toBe('Ann@Example.com');
	expect(customerEmailOf({})).toBeUndefined();
});
