// How a statement names "the records of one model" when the model is a bound parameter.
//
// For `model_id = ?` SQLite may choose a field's partial index (WHERE model_id = '<id>', field-indexes.ts) by
// looking at the value bound when it compiles the statement, and must compile it again when another value is
// bound. SQLite 3.53 does not when the statement was first compiled before any such index existed (a fresh
// database whose first indexed field was defined later): the statement kept reading the first model's index for
// every model bound after it, so other models' records read as missing, counted 0 and were left unchanged.
// `model_id = +?` still uses the table's (model_id, …) indexes, but no partial index's condition can match it,
// so no plan depends on the value bound. Filtered pages name the model as a literal instead (record-filter.ts).

/** The model's records, the model bound (one parameter). */
export const OF_BOUND_MODEL = 'model_id = +?';

/**
 * The records of these ids (a JSON array) that are of the model (two parameters: the ids, then the model): by
 * primary key. With the model's column usable the planner preferred the model's whole index, reading every record
 * of the model to find a few.
 */
export const IDS_OF_BOUND_MODEL = 'id IN (SELECT value FROM json_each(?)) AND +model_id = ?';
