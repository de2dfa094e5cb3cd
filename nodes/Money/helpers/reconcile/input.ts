import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { statusesOf, type TransactionResource } from '../../../api/values';
import { LOOKUP_CONCURRENCY_MAX, STATUS_FROM_FIELD } from '../../descriptions/reconcileFields';
import { periodQuery } from '../read/list';
import { fieldError } from '../validation';
import { readRecord, valueAt } from './records';
import type { MatchSettings, ReconcileRecord } from './types';

/** What Reconcile reads from its parameters and input items: match settings, the period, the records. */

export interface Period {
	start_date: string;
	end_date: string;
}

export function readMatchSettings(this: IExecuteFunctions, options: IDataObject): MatchSettings {
	const tolerance = options.amountTolerance ?? 0;
	if (!(typeof tolerance === 'number' && Number.isSafeInteger(tolerance) && tolerance >= 0)) {
		const rule = 'must be a whole number of 0 or more';
		throw fieldError(this.getNode(), { parameter: 'options', label: 'Amount Tolerance', field: 'amountTolerance', rule }, 0);
	}
	return { amountTolerance: tolerance, pendingIsNotFinal: options.pendingHandling !== 'difference' };
}

/** Records whose transaction the period did not hold are read by reference this many at a time (the Concurrency option). */
export function readConcurrency(this: IExecuteFunctions, options: IDataObject): number {
	const concurrency = options.concurrency ?? 1;
	if (!(typeof concurrency === 'number' && Number.isSafeInteger(concurrency) && concurrency >= 1 && concurrency <= LOOKUP_CONCURRENCY_MAX)) {
		const rule = `must be a whole number from 1 to ${LOOKUP_CONCURRENCY_MAX}`;
		throw fieldError(this.getNode(), { parameter: 'options', label: 'Concurrency', field: 'concurrency', rule }, 0);
	}
	return concurrency;
}

/** The required period, as the API's start_date / end_date. */
export function readPeriodParameters(this: IExecuteFunctions): Period {
	const parameters = { start: 'createdAfter', end: 'createdBefore' };
	const qs = periodQuery.call(this, this.getNodeParameter(parameters.start, 0, ''), this.getNodeParameter(parameters.end, 0, ''), 0, parameters);
	if (!qs.start_date || !qs.end_date) {
		const [parameter, label, field] = qs.start_date ? [parameters.end, 'Created Before', 'end_date'] : [parameters.start, 'Created After', 'start_date'];
		throw fieldError(this.getNode(), { parameter, label, field, rule: 'is required: the period decides which transactions are unexpected' }, 0);
	}
	return { start_date: qs.start_date, end_date: qs.end_date };
}

/**
 * Every record, read from its item through the field names (read once, like Compare Datasets'
 * fields to match: no expression per item). A record that cannot be read stops the node.
 */
export function readRecords(this: IExecuteFunctions, resource: TransactionResource, options: IDataObject): ReconcileRecord[] {
	const statuses = statusesOf(resource);
	const name = (parameter: string, fallback = '') => String(this.getNodeParameter(parameter, 0, fallback) ?? '').trim();
	const fields = {
		reference: name('referenceField'),
		businessReference: name('businessReferenceField'),
		amount: name('amountField', 'amount'),
		currency: name('currencyField'),
	};
	if (!fields.reference && !fields.businessReference) {
		const rule = 'or Business Reference Field must name the record field to match on';
		throw fieldError(this.getNode(), { parameter: 'referenceField', label: 'Reference Field', field: 'referenceField', rule }, 0);
	}
	const expectedStatus = String(this.getNodeParameter('expectedStatus', 0, 'COMPLETED') ?? '');
	const statusField = expectedStatus === STATUS_FROM_FIELD ? name('statusField', 'status') : '';
	const defaultCurrency = typeof options.defaultCurrency === 'string' ? options.defaultCurrency : '';

	const items = this.getInputData();
	const records: ReconcileRecord[] = new Array(items.length);
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const json = items[itemIndex].json;
		const currency = fields.currency ? valueAt(json, fields.currency) : undefined;
		const reading = readRecord(
			itemIndex,
			json,
			{
				reference: fields.reference ? valueAt(json, fields.reference) : undefined,
				businessReference: fields.businessReference ? valueAt(json, fields.businessReference) : undefined,
				amount: valueAt(json, fields.amount),
				currency: currency === undefined || currency === null || currency === '' ? defaultCurrency : currency,
				status: statusField ? valueAt(json, statusField) : expectedStatus,
			},
			statuses,
		);
		if (!reading.ok) throw fieldError(this.getNode(), reading.problem, itemIndex);
		records[itemIndex] = reading.record;
	}
	return records;
}
