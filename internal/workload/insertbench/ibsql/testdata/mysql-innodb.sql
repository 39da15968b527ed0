-- create tables (1 of 3)
DROP TABLE IF EXISTS pi1;

-- create tables (2 of 3)
CREATE TABLE pi1 (
  transactionid bigint NOT NULL AUTO_INCREMENT,
  dateandtime datetime,
  cashregisterid int NOT NULL,
  customerid int NOT NULL,
  productid int NOT NULL,
  price int NOT NULL,
  data varchar(4000),
  PRIMARY KEY (transactionid)) ENGINE=InnoDB;

-- create tables (3 of 3)
ALTER TABLE pi1 COMMENT = 'created by dbperf';

-- tables of the same names not created by dbperf
SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name IN (%s) AND table_comment <> 'created by dbperf' ORDER BY 1;

-- create indexes (1)
ALTER TABLE pi1 ADD INDEX pi1_marketsegment (productid, customerid, price), ADD INDEX pi1_registersegment (cashregisterid, customerid, price), ADD INDEX pi1_pdc (price, dateandtime, customerid);

-- insert (literal, 2 rows)
INSERT INTO pi1 (transactionid, dateandtime, cashregisterid, customerid, productid, price, data) VALUES (1,'2026-01-02 03:04:05',2,3,4,5,'aa''b'),(2,'2026-01-02 03:04:05',6,7,8,9,X'615c27');

-- delete oldest, the reference's text (from 101, 50 rows)
delete from pi1 where transactionid >= 101 order by transactionid asc limit 50;

-- delete oldest, text, shared table (from 101, 50 rows)
delete from pi1 where transactionid >= 101 and transactionid < 151 order by transactionid asc limit 50;

-- range query marketsegment, the reference's text (from 7)
SELECT productid, customerid, price FROM pi1 FORCE INDEX (pi1_marketsegment) WHERE (productid >= 7) ORDER BY productid, customerid, price LIMIT 10;

-- range query registersegment, the reference's text (from 7)
SELECT cashregisterid,customerid,price FROM pi1 FORCE INDEX (pi1_registersegment) WHERE (cashregisterid > 7) ORDER BY cashregisterid, customerid, price LIMIT 10;

-- range query pdc, the reference's text (from 7)
SELECT price,dateandtime,customerid FROM pi1 FORCE INDEX (pi1_pdc) WHERE (price >= 7) ORDER BY price, dateandtime, customerid LIMIT 10;

-- point query, the reference's text (3 ids)
SELECT transactionid, productid, data FROM pi1 WHERE transactionid in (3,1,2);

-- delete oldest, prepared (from, to, limit)
DELETE FROM pi1 WHERE transactionid >= ? AND transactionid < ? ORDER BY transactionid LIMIT ?;

-- range query marketsegment, prepared
SELECT productid, customerid, price FROM pi1 FORCE INDEX (pi1_marketsegment) WHERE productid >= ? ORDER BY productid, customerid, price LIMIT 10;

-- range query registersegment, prepared
SELECT cashregisterid, customerid, price FROM pi1 FORCE INDEX (pi1_registersegment) WHERE cashregisterid > ? ORDER BY cashregisterid, customerid, price LIMIT 10;

-- range query pdc, prepared
SELECT price, dateandtime, customerid FROM pi1 FORCE INDEX (pi1_pdc) WHERE price >= ? ORDER BY price, dateandtime, customerid LIMIT 10;

-- point query, prepared (3 ids)
SELECT transactionid, productid, data FROM pi1 WHERE transactionid IN (?, ?, ?);

-- stats
SELECT count(*), coalesce(min(transactionid), 0), coalesce(max(transactionid), 0) FROM pi1;

-- stats: indexes
SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ? AND index_name IN (?, ?, ?);

-- stats: plan of marketsegment
EXPLAIN SELECT count(*) FROM pi1 FORCE INDEX (pi1_marketsegment) WHERE productid >= -2147483648;

-- stats: entries of marketsegment
SELECT count(*) FROM pi1 FORCE INDEX (pi1_marketsegment) WHERE productid >= -2147483648;

-- stats: plan of registersegment
EXPLAIN SELECT count(*) FROM pi1 FORCE INDEX (pi1_registersegment) WHERE cashregisterid >= -2147483648;

-- stats: entries of registersegment
SELECT count(*) FROM pi1 FORCE INDEX (pi1_registersegment) WHERE cashregisterid >= -2147483648;

-- stats: plan of pdc
EXPLAIN SELECT count(*) FROM pi1 FORCE INDEX (pi1_pdc) WHERE price >= -2147483648;

-- stats: entries of pdc
SELECT count(*) FROM pi1 FORCE INDEX (pi1_pdc) WHERE price >= -2147483648;

