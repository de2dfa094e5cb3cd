import type { IDataObject } from 'n8n-workflow';

import { parseAmount, type FieldProblem, validateReference } from '../validation';
import type { ReconcileRecord } from './types';

/** The mapped values of one input item, as the node's parameters resolved them. */
export interface RecordFields {
	reference: unknown;
	businessReference: unknown;
	amount: unknown;
	currency: unknown;
	status: unknown;
}

export type RecordReading = { ok: true; record: ReconcileRecord } | { ok: false; problem: FieldProblem };

/** A record's field by name: the key itself when present, else a dot path (`order.id`). */
export function valueAt(json: IDataObject, path: string): unknown {
	if (Object.prototype.hasOwnProperty.call(json, path)) return json[path];
	let current: unknown = json;
	for (const key of path.split('.')) {
		if (current === null || typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, key)) return undefined;
		current = (current as IDataObject)[key];
	}
	return current;
}

const CURRENCY_CODE = /^[A-Z]{3}$/;

function text(value: unknown): string {
	return typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
}

/** Checks one record: a reference or business reference, a whole positive amount, a currency, a known status. */
export function readRecord(
	itemIndex: number,
	json: IDataObject,
	fields: RecordFields,
	statuses: readonly string[],
): RecordReading {
	const fail = (parameter: string, label: string, field: string, rule: string): RecordReading => ({
		ok: false,
		problem: { parameter, label, field, rule: `${rule} (input item ${itemIndex})` },
	});
	const reference = validateReference(fields.reference);
	const businessReference = validateReference(fields.businessReference);
	if (!reference && !businessReference) {
		return fail('referenceField', 'Reference Field', 'reference', 'and Business Reference Field give no value to match on');
	}
	const amount = parseAmount(fields.amount);
	if (amount === undefined) {
		return fail('amountField', 'Amount Field', 'amount', 'must be a whole number greater than 0 in the smallest currency unit');
	}
	const currency = text(fields.currency).toUpperCase();
	if (!CURRENCY_CODE.test(currency)) {
		return fail('currencyField', 'Currency Field', 'currency', 'must be a three-letter currency code (for example XOF)');
	}
	const status = text(fields.status).toUpperCase();
	if (status !== '' && !statuses.includes(status)) {
		return fail('statusField', 'Status Field', 'status', `must be empty or one of ${statuses.join(', ')}`);
	}
	return {
		ok: true,
		record: { itemIndex, reference, businessReference, amount, currency, status: status || undefined, json },
	};
}
