import GRDB

/// The store's schema, built by named forward-only migrations: a released step is never edited;
/// a change is a new step appended here.
enum Schema {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1: traces, channels and samples") { db in
            try db.execute(
                sql: """
                    CREATE TABLE trace (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        device TEXT NOT NULL,
                        source_uri TEXT NOT NULL,
                        clock TEXT,
                        rate_hz REAL,
                        orientation TEXT,
                        has_accel BOOLEAN NOT NULL,
                        metadata TEXT NOT NULL DEFAULT '{}',  -- JSON object of strings
                        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                    );
                    CREATE TABLE trace_channel (
                        trace_id INTEGER NOT NULL REFERENCES trace(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        scale REAL NOT NULL,
                        PRIMARY KEY (trace_id, name)
                    );
                    -- The primary key is the (trace_id, t_ns) index: samples are stored in that order
                    -- (WITHOUT ROWID), so a time window is one range scan, and a repeated timestamp
                    -- within a trace is refused by the database itself.
                    CREATE TABLE sample (
                        trace_id INTEGER NOT NULL REFERENCES trace(id) ON DELETE CASCADE,
                        t_ns INTEGER NOT NULL,
                        gx REAL NOT NULL, gy REAL NOT NULL, gz REAL NOT NULL,
                        ax REAL, ay REAL, az REAL,
                        PRIMARY KEY (trace_id, t_ns)
                    ) WITHOUT ROWID;
                    """)
        }
        return m
    }
}
