import type { IDataObject, INode, NodeOperationError } from 'n8n-workflow';

import { ACCOUNT_TYPE_FIELD, ACCOUNT_TYPES, AGENT_METADATA_PREFIX, CHANNELS, CURRENCIES, DOCUMENT_MAX_BYTES, IDENTIFIER_TYPES, MESSAGE_MAX_CHARACTERS, PARTY_FIELD, type TransactionResource } from '../../api/values';
import { notSent } from '../../transport/errors';

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

const INEXACT_NUMBER = 'is a number that is not an exact integer (beyond 9007199254740991 it has lost digits): map it as text';

/** An ID given as a number that is not an exact integer names no one ID (two can read as one). */
function inexactNumber(value: unknown): boolean {
	return typeof value === 'number' && !Number.isSafeInteger(value);
}

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

export type DocumentType = 'image/jpeg' | 'image/png' | 'application/pdf';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PDF_SIGNATURE = [0x25, 0x50, 0x44, 0x46, 0x2d];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];

function startsWith(bytes: Uint8Array, signature: number[]): boolean {
	return bytes.length >= signature.length && signature.every((byte, index) => bytes[index] === byte);
}

/** The document type read from its first bytes, whatever its file name or MIME type claims. */
export function detectDocumentType(bytes: Uint8Array): DocumentType | undefined {
	if (startsWith(bytes, JPEG_SIGNATURE)) return 'image/jpeg';
	if (startsWith(bytes, PNG_SIGNATURE)) return 'image/png';
	if (startsWith(bytes, PDF_SIGNATURE)) return 'application/pdf';
	return undefined;
}

export type DocumentCheck = { ok: true; type: DocumentType } | { ok: false; rule: string };

export function checkDocument(bytes: Uint8Array): DocumentCheck {
	if (bytes.length === 0) return { ok: false, rule: 'must not be empty' };
	if (bytes.length > DOCUMENT_MAX_BYTES) {
		return { ok: false, rule: `must be at most 2 MB (2097152 bytes); it is ${bytes.length} bytes` };
	}
	const type = detectDocumentType(bytes);
	if (!type) return { ok: false, rule: 'must be a JPEG, PNG or PDF document (checked from its bytes)' };
	return { ok: true, type };
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
			`must be a whole number greater than 0 in the smallest currency unit (5000 means 5000 XOF); ${describeGiven(input.amount)}`,
		);
	}
	if (typeof input.currency !== 'string' || !(CURRENCIES as readonly string[]).includes(input.currency)) {
		return fail('currency', 'Currency', 'currency', `must be one of ${oneOf(CURRENCIES)}; ${describeGiven(input.currency)}`);
	}

	const identifierType = input.identifierType;
	if (resource === 'payout' && identifierType === 'bank_account') {
		return fail(parameters.identifierType, `${party} Identifier Type`, `${partyField}.type`, `must be one of ${oneOf(IDENTIFIER_TYPES)}: bank_account is reserved for future use`);
	}
	if (typeof identifierType !== 'string' || !(IDENTIFIER_TYPES as readonly string[]).includes(identifierType)) {
		return fail(parameters.identifierType, `${party} Identifier Type`, `${partyField}.type`, `must be one of ${oneOf(IDENTIFIER_TYPES)}; ${describeGiven(identifierType)}`);
	}
	if (typeof input.identifier !== 'string' && typeof input.identifier !== 'number') {
		return fail(parameters.identifier, `${party} Identifier`, `${partyField}.identifier`, 'is required');
	}
	if (inexactNumber(input.identifier)) return fail(parameters.identifier, `${party} Identifier`, `${partyField}.identifier`, INEXACT_NUMBER);
	const identifier = String(input.identifier).trim();
	if (identifier === '') return fail(parameters.identifier, `${party} Identifier`, `${partyField}.identifier`, 'is required');
	if (identifierType === 'phone' && !PHONE_NUMBER.test(identifier)) {
		return fail(
			parameters.identifier,
			`${party} Identifier`,
			`${partyField}.identifier`,
			`must be a phone number in international format (8 to 15 digits, optional leading +); ${describeGiven(identifier)}`,
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
		if (inexactNumber(input.accountNumber)) return fail('additionalFields.accountNumber', 'Account Number', 'account_number', INEXACT_NUMBER);
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
			if (inexactNumber(referenceNumber)) return fail('additionalFields.paymentReferenceNumber', 'Payment Reference Number', 'payment_reference.ref_number', INEXACT_NUMBER);
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
			if (key.startsWith(AGENT_METADATA_PREFIX)) {
				return fail('additionalFields.metadata', 'Metadata', `metadata.${key}`, `starts with ${AGENT_METADATA_PREFIX}, which the pack writes for an agent's creates (docs/agents.md)`);
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

/** A rule a parameter breaks: the item is not sent, the error names the parameter so the editor finds it. */
export function fieldError(node: INode, problem: FieldProblem, itemIndex: number): NodeOperationError {
	return notSent(node, itemIndex, describeProblem(problem), 'Nothing was sent to the Money API: fix the parameter and run again.', { field: problem.field, parameter: problem.parameter });
}
