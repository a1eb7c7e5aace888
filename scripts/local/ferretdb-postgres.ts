import pg from 'pg';
import { createDatabaseIfMissing, databaseName, withAdminClient } from './postgres.ts';

/**
 * Prepares the PostgreSQL database under FerretDB's PostgreSQL backend so that FerretDB's queries
 * use indexes.
 *
 * FerretDB 1.24 turns an equality filter into `_jsonb -> 'field' @> '<value>'` but indexes a field
 * with a btree on `(_jsonb -> 'field')`, which cannot answer `@>`: every query, `_id` included,
 * reads the whole table (measured: 90 ms for a findOne by `_id` among 20,000 posts). Two settings
 * fix that without touching FerretDB:
 * - an event trigger gives every btree index FerretDB creates a GIN twin over the same
 *   expressions (jsonb_path_ops answers `@>`), so our declared indexes serve FerretDB's SQL;
 * - `plan_cache_mode = force_custom_plan`: FerretDB passes the field name as a statement parameter,
 *   and a generic plan, made without the actual name, cannot match an index expression. PostgreSQL
 *   keeps custom plans anyway while they are much cheaper; the setting makes that certain.
 * Both are idempotent; existing indexes get their twins too, so an older database is upgraded.
 */
export async function prepareFerretDbDatabase(url: string): Promise<void> {
  await createDatabaseIfMissing(url);
  await withAdminClient(url, (admin) =>
    admin.query(`ALTER DATABASE ${databaseName(url)} SET plan_cache_mode = force_custom_plan`));

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(twinFunctionSql);
    await client.query(`
      DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'sps_ferretdb_gin_twins') THEN
          CREATE EVENT TRIGGER sps_ferretdb_gin_twins ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
            EXECUTE FUNCTION sps_ferretdb_gin_twin_trigger();
        END IF;
      END $$;`);
    // Indexes made before the trigger existed (a database from an earlier version).
    await client.query(`
      SELECT sps_ferretdb_gin_twin(index.indexrelid)
      FROM pg_index AS index JOIN pg_class AS relation ON relation.oid = index.indexrelid
      JOIN pg_am AS method ON method.oid = relation.relam
      WHERE method.amname = 'btree' AND pg_get_indexdef(index.indexrelid) LIKE '%_jsonb -> %'`);
  } finally {
    await client.end();
  }
}

/** Drops a database FerretDB used (the test suite's, at the end of a run). */
export async function dropFerretDbDatabase(url: string): Promise<void> {
  await withAdminClient(url, (admin) => admin.query(`DROP DATABASE IF EXISTS ${databaseName(url)} WITH (FORCE)`));
}

/**
 * `sps_ferretdb_gin_twin(index)` creates the GIN twin of one btree index whose key columns are
 * all `_jsonb -> 'field'` expressions; anything else (our own twins, FerretDB's metadata
 * columns, nested paths) is left alone. fastupdate is off so that queries never scan a pending
 * list that grows with every insert.
 */
const twinFunctionSql = `
CREATE OR REPLACE FUNCTION sps_ferretdb_gin_twin(source oid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  table_oid oid;
  key_count int;
  expressions text[] := '{}';
  expression text;
  twin_name text;
BEGIN
  SELECT indrelid, indnkeyatts INTO table_oid, key_count FROM pg_index WHERE indexrelid = source;
  IF table_oid IS NULL THEN RETURN; END IF;
  FOR position IN 1..key_count LOOP
    expression := pg_get_indexdef(source, position, true);
    IF expression !~ '^\\(?_jsonb -> ''[^'']*''::text\\)?$' THEN RETURN; END IF;
    expressions := expressions || (expression || ' jsonb_path_ops');
  END LOOP;
  twin_name := left((SELECT relname FROM pg_class WHERE oid = source), 54) || '_gin';
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %s USING gin (%s) WITH (fastupdate = off)',
    twin_name, table_oid::regclass, array_to_string(expressions, ', '));
END $$;

CREATE OR REPLACE FUNCTION sps_ferretdb_gin_twin_trigger() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE
  command record;
BEGIN
  FOR command IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE object_type = 'index' LOOP
    IF (SELECT method.amname FROM pg_class AS relation JOIN pg_am AS method ON method.oid = relation.relam
        WHERE relation.oid = command.objid) = 'btree' THEN
      PERFORM sps_ferretdb_gin_twin(command.objid);
    END IF;
  END LOOP;
END $$;`;
