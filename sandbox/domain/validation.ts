import { ACCOUNT_TYPES, CURRENCIES, type AccountType, type Currency, type IdentifierType, type PaymentReferenceRecord, type Resource } from './types';

export const MESSAGE_MAX_CHARACTERS = 255;
export const REF_DOCUMENT_MAX_BYTES = 2 * 1024 * 1024;

export interface CreateRequest {
	resource: Resource;
	amount: number;
	currency: Currency;
	party: { identifier: string; type: IdentifierType };
	accountType: AccountType | undefined;
	channel: string;
	pin: string;
	accountNumber: string | undefined;
	message: string | null;
	paymentReference: PaymentReferenceRecord | null;
	metadata: Record<string, unknown> | null;
}

export type Validation = { ok: true; request: CreateRequest } | { ok: false; fields: Record<string, string> };

export const partyField = (resource: Resource): string => (resource === 'charge' ? 'payer_identifier' : 'beneficiary_identifier');
export const accountTypeField = (resource: Resource): string =>
	resource === 'charge' ? 'payer_account_type' : 'beneficiary_account_type';

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isAbsent = (value: unknown): boolean => value === undefined || value === null;

export function detectDocumentType(bytes: Buffer): string | null {
	if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
	if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
	if (bytes.length >= 5 && bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
	return null;
}

function validatePaymentReference(value: unknown, fields: Record<string, string>): PaymentReferenceRecord | null {
	if (isAbsent(value)) return null;
	if (!isPlainObject(value)) {
		fields.payment_reference = 'must be an object { ref_number, ref_document }';
		return null;
	}
	const { ref_number: refNumber, ref_document: refDocument } = value;
	if (!isAbsent(refNumber) && (typeof refNumber !== 'string' || refNumber.length === 0 || refNumber.length > 100)) {
		fields['payment_reference.ref_number'] = 'must be a non-empty string of at most 100 characters';
	}
	if (isAbsent(refNumber) && isAbsent(refDocument)) {
		fields.payment_reference = 'needs ref_number or ref_document';
	}
	let document: PaymentReferenceRecord['document'] = null;
	if (!isAbsent(refDocument)) {
		if (typeof refDocument !== 'string' || refDocument.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(refDocument)) {
			fields['payment_reference.ref_document'] = 'must be base64';
		} else {
			const bytes = Buffer.from(refDocument, 'base64');
			const contentType = detectDocumentType(bytes);
			if (bytes.length > REF_DOCUMENT_MAX_BYTES) {
				fields['payment_reference.ref_document'] = `decoded size ${bytes.length} bytes exceeds 2 MB`;
			} else if (!contentType) {
				fields['payment_reference.ref_document'] = 'must be a JPEG, PNG or PDF document';
			} else {
				document = { content_type: contentType, size: bytes.length };
			}
		}
	}
	return { ref_number: typeof refNumber === 'string' ? refNumber : null, document };
}

export function validateCreate(resource: Resource, body: unknown): Validation {
	if (!isPlainObject(body)) return { ok: false, fields: { body: 'must be a JSON object' } };
	const fields: Record<string, string> = {};
	const { amount, currency, channel, pin, account_number: accountNumber, message, metadata } = body;

	if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) {
		fields.amount = 'must be an integer greater than 0 (smallest currency unit)';
	}
	if (typeof currency !== 'string' || !(CURRENCIES as readonly string[]).includes(currency)) {
		fields.currency = `must be one of ${CURRENCIES.join(', ')}`;
	}

	const partyName = partyField(resource);
	const partyValue = body[partyName];
	let party: CreateRequest['party'] | undefined;
	if (!isPlainObject(partyValue)) {
		fields[partyName] = 'must be an object { identifier, type }';
	} else {
		const { identifier, type } = partyValue;
		if (typeof identifier !== 'string' || identifier.trim().length === 0 || identifier.length > 64) {
			fields[`${partyName}.identifier`] = 'must be a non-empty string';
		}
		if (resource === 'payout' && type === 'bank_account') {
			fields[`${partyName}.type`] = 'bank_account is reserved for future use';
		} else if (type !== 'gm_account' && type !== 'phone') {
			fields[`${partyName}.type`] = 'must be gm_account or phone';
		} else if (type === 'phone' && typeof identifier === 'string' && !/^\+?\d{8,15}$/.test(identifier)) {
			fields[`${partyName}.identifier`] = 'must be a phone number in international format';
		}
		if (!fields[`${partyName}.identifier`] && !fields[`${partyName}.type`]) {
			party = { identifier: identifier as string, type: type as IdentifierType };
		}
	}

	if (typeof channel !== 'string' || channel.length === 0) fields.channel = 'is required';
	if (typeof pin !== 'string' || pin.length === 0) fields.pin = 'is required';

	const accountTypeName = accountTypeField(resource);
	const accountType = body[accountTypeName];
	if (!isAbsent(accountType) && !(typeof accountType === 'string' && (ACCOUNT_TYPES as readonly string[]).includes(accountType))) {
		fields[accountTypeName] = `must be one of ${ACCOUNT_TYPES.join(', ')}`;
	} else if (isAbsent(accountType) && party?.type === 'phone' && channel === 'platform') {
		fields[accountTypeName] = `is required when ${partyName}.type is phone and channel is platform`;
	}

	if (!isAbsent(accountNumber) && (typeof accountNumber !== 'string' || accountNumber.length === 0)) {
		fields.account_number = 'must be a non-empty string';
	}
	if (!isAbsent(message)) {
		if (typeof message !== 'string') fields.message = 'must be a string';
		else if (Array.from(message).length > MESSAGE_MAX_CHARACTERS) fields.message = `must be at most ${MESSAGE_MAX_CHARACTERS} characters`;
	}
	const paymentReference = validatePaymentReference(body.payment_reference, fields);
	if (!isAbsent(metadata) && !isPlainObject(metadata)) fields.metadata = 'must be an object';

	if (Object.keys(fields).length > 0 || !party) return { ok: false, fields };
	return {
		ok: true,
		request: {
			resource,
			amount: amount as number,
			currency: currency as Currency,
			party,
			accountType: isAbsent(accountType) ? undefined : (accountType as AccountType),
			channel: channel as string,
			pin: pin as string,
			accountNumber: isAbsent(accountNumber) ? undefined : (accountNumber as string),
			message: isAbsent(message) ? null : (message as string),
			paymentReference,
			metadata: isAbsent(metadata) ? null : (metadata as Record<string, unknown>),
		},
	};
}

export function stableStringify(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
	if (isPlainObject(value)) {
		return `{${Object.keys(value)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${stableStringify(value[key])}`)
			.join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}
