import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ACCOUNT_TYPE_FIELD, ACCOUNT_TYPES, CHANNELS, CURRENCIES, IDENTIFIER_TYPES, MESSAGE_MAX_CHARACTERS, PARTY_FIELD, type TransactionResource } from '../../api/values';
import { checkDocument } from './document';

/** A client-side rule a parameter breaks: the parameter, the API field, the rule. */
export interface FieldProblem {
	/**
	 * The parameter's path of internal names (`amount`, `additionalFields.message`): n8n's editor
	 * finds the field by it (the error's "In parameter"; a label there reads "Could not find
	 * parameter"). The editor takes the node's first parameter of each name, whatever the resource
	 * and operation: an Option is named by its collection, `options`, whose first holder (Account →
	 * Get) has other options.
	 */
	parameter: string;
	/** The parameter as the panel labels it, for the message. */
	label: string;
	field: string;
	rule: string;
}

export function describeProblem(problem: FieldProblem): string {
	return `${problem.label} (${problem.field}) ${problem.rule}`;
}

export interface CreateInput {
	amount: unknown;
	currency: unknown;
	identifier: unknown;
	identifierType: unknown;
	channel: unknown;
	accountType?: unknown;
	accountNumber?: unknown;
	message?: unknown;
	metadata?: Array<{ key?: unknown; value?: unknown }>;
	paymentReferenceNumber?: unknown;
	document?: Uint8Array;
}

export type CreateValidation = { ok: true; body: IDataObject } | { ok: false; problem: FieldProblem };

const PHONE_NUMBER = /^\+?\d{8,15}$/;
const PARTY_LABEL: Record<TransactionResource, string> = { charge: 'Payer', payout: 'Beneficiary' };

/**
 * The internal names of the party's parameters: each party has its own, since the editor finds an
 * error's field by the node's first parameter of that name (FieldProblem.parameter).
 */
export const PARTY_PARAMETERS = {
	charge: { identifierType: 'payerIdentifierType', identifier: 'payerIdentifier', accountType: 'payerAccountType' },
	payout: { identifierType: 'beneficiaryIdentifierType', identifier: 'beneficiaryIdentifier', accountType: 'beneficiaryAccountType' },
} as const satisfies Record<TransactionResource, Record<'identifierType' | 'identifier' | 'accountType', string>>;

function isBlank(value: unknown): boolean {
	return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function oneOf(values: readonly string[]): string {
	return values.map((value) => `"${value}"`).join(', ');
}

export function parseAmount(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : undefined;
	if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) {
		const parsed = Number(value.trim());
		return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : undefined;
	}
	return undefined;
}

function describeGiven(value: unknown): string {
	if (value === undefined || value === null || value === '') return 'nothing was given';
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	return `got ${text.length > 40 ? `${text.slice(0, 40)}…` : text}`;
}

/** Checks every create rule the Money API documents and builds the request body (without the PIN). */
export function validateCreateInput(resource: TransactionResource, input: CreateInput): CreateValidation {
	const party = PARTY_LABEL[resource];
	const partyField = PARTY_FIELD[resource];
	const accountTypeField = ACCOUNT_TYPE_FIELD[resource];
	const parameters = PARTY_PARAMETERS[resource];
	const fail = (parameter: string, label: string, field: string, rule: string): CreateValidation => ({
		ok: false,
		problem: { parameter, label, field, rule },
	});

	const amount = parseAmount(input.amount);
	if (amount === undefined) {
		return fail(
			'amount',
			'Amount',
			'amount',
			`must be a whole number greater than 0 in the smallest currency unit (XOF and XAF have no minor unit: 5000 means 5000 XOF); ${describeGiven(input.amount)}`,
		);
	}
	if (typeof input.currency !== 'string' || !(CURRENCIES as readonly string[]).includes(input.currency)) {
		return fail('currency', 'Currency', 'currency', `must be one of ${oneOf(CURRENCIES)}; ${describeGiven(input.currency)}`);
	}

	const identifierType = input.identifierType;
	if (resource === 'payout' && identifierType === 'bank_account') {
		return fail(parameters.identifierType, `${party} Identifier Type`, `${partyField}.type`, 'bank_account is reserved for future use by the Money API');
	}
	if (typeof identifierType !== 'string' || !(IDENTIFIER_TYPES as readonly string[]).includes(identifierType)) {
		return fail(parameters.identifierType, `${party} Identifier Type`, `${partyField}.type`, `must be one of ${oneOf(IDENTIFIER_TYPES)}; ${describeGiven(identifierType)}`);
	}
	if (typeof input.identifier !== 'string' && typeof input.identifier !== 'number') {
		return fail(parameters.identifier, `${party} Identifier`, `${partyField}.identifier`, 'is required');
	}
	const identifier = String(input.identifier).trim();
	if (identifier === '') return fail(parameters.identifier, `${party} Identifier`, `${partyField}.identifier`, 'is required');
	if (identifierType === 'phone' && !PHONE_NUMBER.test(identifier)) {
		return fail(
			parameters.identifier,
			`${party} Identifier`,
			`${partyField}.identifier`,
			`must be a phone number in international format (8 to 15 digits, optional leading +) when the type is phone; ${describeGiven(identifier)}`,
		);
	}

	if (typeof input.channel !== 'string' || !(CHANNELS as readonly string[]).includes(input.channel)) {
		return fail('channel', 'Channel', 'channel', `must be one of ${oneOf(CHANNELS)}; ${describeGiven(input.channel)}`);
	}

	const body: IDataObject = {
		amount,
		currency: input.currency,
		[partyField]: { identifier, type: identifierType },
		channel: input.channel,
	};

	if (!isBlank(input.accountType)) {
		if (typeof input.accountType !== 'string' || !(ACCOUNT_TYPES as readonly string[]).includes(input.accountType)) {
			return fail(parameters.accountType, `${party} Account Type`, accountTypeField, `must be one of ${oneOf(ACCOUNT_TYPES)}; ${describeGiven(input.accountType)}`);
		}
		body[accountTypeField] = input.accountType;
	} else if (identifierType === 'phone' && input.channel === 'platform') {
		return fail(
			parameters.accountType,
			`${party} Account Type`,
			accountTypeField,
			'is required when the identifier type is phone and the channel is platform',
		);
	}

	if (!isBlank(input.accountNumber)) {
		if (typeof input.accountNumber !== 'string' && typeof input.accountNumber !== 'number') {
			return fail('additionalFields.accountNumber', 'Account Number', 'account_number', 'must be text');
		}
		body.account_number = String(input.accountNumber).trim();
	}

	if (!isBlank(input.message)) {
		if (typeof input.message !== 'string') return fail('additionalFields.message', 'Message', 'message', 'must be text');
		const length = Array.from(input.message).length;
		if (length > MESSAGE_MAX_CHARACTERS) {
			return fail('additionalFields.message', 'Message', 'message', `must be at most ${MESSAGE_MAX_CHARACTERS} characters; it has ${length}`);
		}
		body.message = input.message;
	}

	const referenceNumber = input.paymentReferenceNumber;
	if (!isBlank(referenceNumber) || input.document) {
		const paymentReference: IDataObject = {};
		if (!isBlank(referenceNumber)) {
			if (typeof referenceNumber !== 'string' && typeof referenceNumber !== 'number') {
				return fail('additionalFields.paymentReferenceNumber', 'Payment Reference Number', 'payment_reference.ref_number', 'must be text');
			}
			paymentReference.ref_number = String(referenceNumber).trim();
		}
		if (input.document) {
			const check = checkDocument(input.document);
			if (!check.ok) return fail('additionalFields.paymentReferenceDocumentField', 'Payment Reference Document', 'payment_reference.ref_document', check.rule);
			paymentReference.ref_document = Buffer.from(input.document).toString('base64');
		}
		body.payment_reference = paymentReference;
	}

	if (input.metadata && input.metadata.length > 0) {
		const metadata: IDataObject = {};
		for (const [index, entry] of input.metadata.entries()) {
			const key = typeof entry.key === 'string' ? entry.key.trim() : '';
			if (key === '') return fail('additionalFields.metadata', 'Metadata', `metadata[${index}].key`, 'needs a non-empty key');
			if (Object.prototype.hasOwnProperty.call(metadata, key)) {
				return fail('additionalFields.metadata', 'Metadata', `metadata.${key}`, 'has this key more than once');
			}
			if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
				return fail('additionalFields.metadata', 'Metadata', `metadata.${key}`, 'uses a reserved key name');
			}
			metadata[key] = (entry.value ?? '') as IDataObject[string];
		}
		body.metadata = metadata;
	}

	return { ok: true, body };
}

export function validateReference(value: unknown): string | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	return text === '' ? undefined : text;
}

function zoneOffsetMs(utcMs: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(utcMs));
	const part = (type: string) => Number(parts.find((entry) => entry.type === type)?.value ?? 0);
	const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
	return wall - Math.floor(utcMs / 1000) * 1000;
}

const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/;
const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * An n8n date picker value (wall time in the workflow's time zone, no offset), an ISO string with
 * an offset, or a date object, as an ISO 8601 UTC timestamp. Undefined when it is not a date.
 */
export function toIsoTimestamp(value: unknown, timeZone: string): string | undefined {
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
	if (value && typeof value === 'object' && typeof (value as { toISO?: unknown }).toISO === 'function') {
		return toIsoTimestamp((value as { toISO: () => string }).toISO(), timeZone);
	}
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	if (HAS_ZONE.test(text)) {
		const parsed = Date.parse(text);
		return Number.isNaN(parsed) ? undefined : new Date(parsed).toISOString();
	}
	const match = WALL_TIME.exec(text);
	if (!match) return undefined;
	const [, year, month, day, hour = '0', minute = '0', second = '0', milli = '0'] = match;
	const guess = Date.UTC(+year, +month - 1, +day, +hour, +minute, +second, +milli.padEnd(3, '0'));
	if (Number.isNaN(guess)) return undefined;
	let zone = timeZone;
	try {
		zoneOffsetMs(guess, zone);
	} catch {
		zone = 'UTC';
	}
	const firstOffset = zoneOffsetMs(guess, zone);
	let utc = guess - firstOffset;
	const secondOffset = zoneOffsetMs(utc, zone);
	if (secondOffset !== firstOffset) utc = guess - secondOffset;
	return new Date(utc).toISOString();
}

export function fieldError(node: INode, problem: FieldProblem, itemIndex: number): NodeOperationError {
	const error = new NodeOperationError(node, describeProblem(problem), {
		itemIndex,
		description: 'Nothing was sent to the Money API. Fix the parameter and run again.',
	});
	error.context.field = problem.field;
	error.context.parameter = problem.parameter;
	error.context.attempted = false;
	return error;
}
