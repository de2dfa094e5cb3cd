import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	expectedStatusFields,
	reconcileNotice,
	reconcileOptions,
	reconcilePeriodFields,
	recordFieldNames,
} from '../../descriptions/reconcileFields';
import { indexPeriod, lookUpOutsidePeriod } from '../../helpers/reconcile/apiReads';
import { checkBusinessReferencesListed } from '../../helpers/reconcile/businessReferenceCheck';
import { readMatchSettings, readPeriodParameters, readRecords } from '../../helpers/reconcile/input';
import { outcomeOutputs } from '../../helpers/reconcile/items';
import { matchRecords } from '../../helpers/reconcile/match';
import { reportItem } from '../../helpers/reconcile/reportItem';
import { simplifyTransaction } from '../../helpers/simplify';
import { callSettingsOf } from '../../../transport/request';

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['payout'], operation: ['reconcile'] } }, [
	reconcileNotice('payout'),
	...reconcilePeriodFields('payout'),
	...recordFieldNames('payout'),
	...expectedStatusFields('payout'),
	reconcileOptions('payout'),
]);

/**
 * The input items are the merchant's records; every payout of the period is read and matched.
 * Outputs: Matched, Mismatched, Missing in API, Unexpected in API, and with the Report option a fifth.
 */
export async function executeBatch(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const matchSettings = readMatchSettings.call(this, options);
	const period = readPeriodParameters.call(this);
	const records = readRecords.call(this, 'payout', options);
	const settings = callSettingsOf(options);
	const index = await indexPeriod.call(this, 'payout', period, settings);
	if (options.lookUpOutsidePeriod !== false) await lookUpOutsidePeriod.call(this, 'payout', records, settings, index);
	checkBusinessReferencesListed.call(this, 'payout', records, index);
	const outcomes = matchRecords(records, index, matchSettings);
	const outputs = outcomeOutputs(outcomes, options.simplify === true ? simplifyTransaction : (envelope) => envelope);
	if (options.report === true) outputs.push([await reportItem.call(this, 'payout', outcomes, period, records.length, options)]);
	return outputs;
}
