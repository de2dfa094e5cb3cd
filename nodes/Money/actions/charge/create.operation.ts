import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	accountTypeField,
	additionalFields,
	amountField,
	amountNotice,
	businessReferenceField,
	businessReferenceNotice,
	channelField,
	createOptions,
	currencyField,
	identifierField,
	identifierTypeField,
	type Party,
	requireBusinessReferenceField,
	requireBusinessReferenceOffNotice,
	toolModeFields,
} from '../../descriptions/createFields';
import { businessReferenceOf, guardToolMode, walletPinOf } from '../../helpers/create/guards';
import { readCreateBody } from '../../helpers/create/input';
import { refuseUnsafeReferences } from '../../helpers/create/referenceCheck';
import { type CreateRequest, sendCreate, withFinalStatus } from '../../helpers/create/send';
import type { OperationContext } from '../node.type';

const PAYER: Party = { label: 'Payer', verb: 'charged' };

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['charge'], operation: ['create'] } }, [
	amountNotice,
	amountField,
	currencyField,
	identifierTypeField(PAYER),
	identifierField(PAYER),
	channelField('The payer approves in the app; the output carries the redirect_link to hand to the payer'),
	accountTypeField(PAYER),
	businessReferenceNotice,
	businessReferenceField,
	requireBusinessReferenceField('charge'),
	requireBusinessReferenceOffNotice,
	additionalFields('credit'),
	...toolModeFields('charge', 'charge'),
	createOptions('charge'),
]);

/** Validates, checks the guards, derives the idempotency key, sends once (paced), optionally waits for the final status. */
export async function execute(this: IExecuteFunctions, itemIndex: number, context: OperationContext): Promise<INodeExecutionData[]> {
	await refuseUnsafeReferences.call(this, 'charge', itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const body = await readCreateBody.call(this, 'charge', itemIndex);
	if (context.isToolMode) guardToolMode.call(this, 'charge', body.amount as number, itemIndex);
	const pin = await walletPinOf.call(this, options, itemIndex, context);
	const businessReference = businessReferenceOf.call(this, 'charge', itemIndex);
	const request: CreateRequest = { resource: 'charge', body, pin, businessReference, itemIndex, options, settings: context.callSettings(itemIndex) };
	const created = await sendCreate.call(this, request, context);
	return [{ json: await withFinalStatus.call(this, request, created), pairedItem: { item: itemIndex } }];
}
