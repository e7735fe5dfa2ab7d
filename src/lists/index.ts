/**
 * The one way into lists from the rest of src/ (the layers test enforces it): the request, the
 * envelope, the page a request reads, and the counters every write of a listed record keeps.
 */
export { AMOUNT_CLASS_LEVELS, amountClassSortKey, classesOfAmount, levelsOfClass } from './counters/amountClassBuckets.ts';
export { tailCountSql } from './counters/changeTail.ts';
export { DEFAULT_FOLD_SETTINGS, startCountFolder, type FoldSettings } from './counters/countFolder.ts';
export { BUCKETED_SLICES, COUNTED_SLICES, DIMENSIONS, sliceKeyOf, type SliceKey } from './counters/countedSlices.ts';
export { measureFoldLag } from './counters/foldChanges.ts';
export { sortValueOf, type BucketRow, type PaymentPosition } from './counters/listBuckets.ts';
export { recordListWrite } from './counters/recordListWrite.ts';
export { accountCountKeys, adjustCounts, countRows, eventCountKeys, type CountDelta, type CountRow } from './counters/listCounts.ts';
export { CARRIED_COLUMNS, carriedOf, metadataEntryRows, type Carried } from './counters/metadataEntries.ts';
export { METADATA_ENTRY_TABLE, ValueCountTally, type ValueCountRow } from './counters/metadataValueCounts.ts';
export { BUCKETED_COLUMNS, bucketLevels, type BucketLevel, type SliceKind } from './counters/sortBuckets.ts';
export { EnvelopeSchema, ResourceSchema } from './envelope/envelopeSchema.ts';
export { decodedKey } from './envelope/pageUrl.ts';
export { listTotalSelect, wholeListQuery, type KeyedPlan } from './sql/listStatements.ts';
export type { ListContext } from './runListPage.ts';
export type { ListTuning } from './plan/listTuning.ts';
export { listHandler, listRouteConfig, type ListEndpoint } from './listHandler.ts';
export { caseFold } from './request/caseFold.ts';
export { filterAndSortSchema, listQuerySchema } from './request/listQuerySchema.ts';
export type { ListScope, ListTable } from './request/listScope.ts';
export type { ListSpec } from './request/listSpec.ts';
export { readListQuery, type ListQuery, type RawListQuery } from './request/parseListQuery.ts';
export { listSchemaFieldErrors } from './request/readListRequest.ts';
export { applyConditions, applyOrder } from './sql/applyListQuery.ts';
export { keyedConditionOf, keyedPlanOf } from './plan/keyedPlans.ts';
export { keyedCounts } from './sql/keyedFilters.ts';
export { sortedIdsListSelect, wholeListSelect } from './sql/listPageQueries.ts';
export { tenantRead } from './tenantReads.ts';
