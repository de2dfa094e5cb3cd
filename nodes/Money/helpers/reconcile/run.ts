import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import { callSettingsOf } from '../../../transport/request';
import { simplifyTransaction } from '../simplify';
import { indexPeriod, lookUpByBusinessReference, lookUpByReference } from './apiReads';
import { checkBusinessReferencesListed } from './businessReferenceCheck';
import { readConcurrency, readMatchSettings, readPeriodParameters, readRecords } from './input';
import { outcomeOutputs } from './items';
import { matchRecords } from './match';
import { tellPeriodRead } from './periodRead';
import { reportItem } from './reportItem';

/**
 * Charge → Reconcile and Payout → Reconcile: the input items are the merchant's records; every
 * transaction of the period is read (each once, checked against the API's count), those records
 * name that the period did not hold are read by reference, those with a Business Reference still
 * not found are looked for after and before it, and each record and each unclaimed
 * transaction goes to one output: Matched, Mismatched, Missing in API, Unexpected in API, and with
 * the Report option a fifth.
 */
export async function runReconcile(this: IExecuteFunctions, resource: TransactionResource): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const matchSettings = readMatchSettings.call(this, options);
	const period = readPeriodParameters.call(this);
	const records = readRecords.call(this, resource, options);
	const settings = { ...callSettingsOf(options), concurrency: readConcurrency.call(this, options) };
	const { index, read } = await indexPeriod.call(this, resource, period, settings);
	await lookUpByReference.call(this, resource, records, period, settings, index);
	const searched = await lookUpByBusinessReference.call(this, resource, records, period, settings, index);
	checkBusinessReferencesListed.call(this, resource, records, index);
	const outcomes = matchRecords(records, index, matchSettings, searched);
	tellPeriodRead(this, resource, outcomes, read, period);
	const outputs = outcomeOutputs(outcomes, options.simplify === true ? simplifyTransaction : (envelope) => envelope);
	if (options.report === true) outputs.push([await reportItem.call(this, resource, outcomes, period, read, records.length, options)]);
	return outputs;
}
