-- create tables (1 of 3)
DROP TABLE IF EXISTS pi1;

-- create tables (2 of 3)
CREATE TABLE pi1 (
  transactionid bigserial PRIMARY KEY,
  dateandtime timestamp without time zone,
  cashregisterid int NOT NULL,
  customerid int NOT NULL,
  productid int NOT NULL,
  price int NOT NULL,
  data varchar(4000));

-- create tables (3 of 3)
COMMENT ON TABLE pi1 IS 'created by dbperf';

-- tables of the same names not created by dbperf
SELECT c.relname FROM pg_class c WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace AND c.relname = ANY($1) AND coalesce(obj_description(c.oid, 'pg_class'), '') <> 'created by dbperf' ORDER BY 1;

-- create index marketsegment
CREATE INDEX pi1_marketsegment ON pi1 (productid, customerid, price);

-- create index registersegment
CREATE INDEX pi1_registersegment ON pi1 (cashregisterid, customerid, price);

-- create index pdc
CREATE INDEX pi1_pdc ON pi1 (price, dateandtime, customerid);

-- insert (literal, 2 rows)
INSERT INTO pi1 (transactionid, dateandtime, cashregisterid, customerid, productid, price, data) VALUES (1,'2026-01-02 03:04:05',2,3,4,5,'aa''b'),(2,'2026-01-02 03:04:05',6,7,8,9,'a\''');

-- delete oldest, the reference's text (from 101, 50 rows)
delete from pi1 where transactionid in (select transactionid from pi1 where transactionid >= 101 order by transactionid asc limit 50);

-- delete oldest, text, shared table (from 101, 50 rows)
delete from pi1 where transactionid in (select transactionid from pi1 where transactionid >= 101 and transactionid < 151 order by transactionid asc limit 50);

-- delete oldest, prepared (from, to, limit)
DELETE FROM pi1 WHERE transactionid IN (SELECT transactionid FROM pi1 WHERE transactionid >= $1 AND transactionid < $2 ORDER BY transactionid LIMIT $3);

-- range query marketsegment, prepared
SELECT productid, customerid, price FROM pi1 WHERE productid >= $1 ORDER BY productid, customerid, price LIMIT 10;

-- range query registersegment, prepared
SELECT cashregisterid, customerid, price FROM pi1 WHERE cashregisterid > $1 ORDER BY cashregisterid, customerid, price LIMIT 10;

-- range query pdc, prepared
SELECT price, dateandtime, customerid FROM pi1 WHERE price >= $1 ORDER BY price, dateandtime, customerid LIMIT 10;

-- point query, prepared (3 ids)
SELECT transactionid, productid, data FROM pi1 WHERE transactionid IN ($1, $2, $3);

-- stats
SELECT count(*), coalesce(min(transactionid), 0), coalesce(max(transactionid), 0) FROM pi1;

-- stats: indexes
SELECT count(*) FROM pg_indexes WHERE tablename = $1 AND indexname <> $2;

-- stats: indexes
SET LOCAL enable_seqscan = off;

-- stats: indexes
SET LOCAL enable_bitmapscan = off;

-- stats: indexes
SET LOCAL enable_sort = off;

-- stats: plan of marketsegment
EXPLAIN SELECT count(*) FROM (SELECT 1 FROM pi1 ORDER BY productid, customerid, price) ordered;

-- stats: entries of marketsegment
SELECT count(*) FROM (SELECT 1 FROM pi1 ORDER BY productid, customerid, price) ordered;

-- stats: plan of registersegment
EXPLAIN SELECT count(*) FROM (SELECT 1 FROM pi1 ORDER BY cashregisterid, customerid, price) ordered;

-- stats: entries of registersegment
SELECT count(*) FROM (SELECT 1 FROM pi1 ORDER BY cashregisterid, customerid, price) ordered;

-- stats: plan of pdc
EXPLAIN SELECT count(*) FROM (SELECT 1 FROM pi1 ORDER BY price, dateandtime, customerid) ordered;

-- stats: entries of pdc
SELECT count(*) FROM (SELECT 1 FROM pi1 ORDER BY price, dateandtime, customerid) ordered;

