-- create tables (1 of 2)
DROP TABLE IF EXISTS pi1;

-- create tables (2 of 2)
CREATE TABLE pi1 (
  transactionid INTEGER PRIMARY KEY,
  dateandtime datetime,
  cashregisterid int NOT NULL,
  customerid int NOT NULL,
  productid int NOT NULL,
  price int NOT NULL,
  data varchar(4000));

-- create index marketsegment
CREATE INDEX pi1_marketsegment ON pi1 (productid, customerid, price);

-- create index registersegment
CREATE INDEX pi1_registersegment ON pi1 (cashregisterid, customerid, price);

-- create index pdc
CREATE INDEX pi1_pdc ON pi1 (price, dateandtime, customerid);

-- insert (bound, 2 rows)
INSERT INTO pi1 (transactionid, dateandtime, cashregisterid, customerid, productid, price, data) VALUES (?,?,?,?,?,?,?),(?,?,?,?,?,?,?);

-- delete oldest, prepared (from, to, limit)
DELETE FROM pi1 WHERE transactionid IN (SELECT transactionid FROM pi1 WHERE transactionid >= ? AND transactionid < ? ORDER BY transactionid LIMIT ?);

-- range query marketsegment, prepared
SELECT productid, customerid, price FROM pi1 WHERE productid >= ? ORDER BY productid, customerid, price LIMIT 10;

-- range query registersegment, prepared
SELECT cashregisterid, customerid, price FROM pi1 WHERE cashregisterid > ? ORDER BY cashregisterid, customerid, price LIMIT 10;

-- range query pdc, prepared
SELECT price, dateandtime, customerid FROM pi1 WHERE price >= ? ORDER BY price, dateandtime, customerid LIMIT 10;

-- point query, prepared (3 ids)
SELECT transactionid, productid, data FROM pi1 WHERE transactionid IN (?, ?, ?);

-- stats
SELECT count(*), coalesce(min(transactionid), 0), coalesce(max(transactionid), 0) FROM pi1;

-- stats: indexes
SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL;

-- stats: entries of marketsegment
SELECT count(*) FROM pi1 INDEXED BY pi1_marketsegment WHERE productid >= -1;

-- stats: entries of registersegment
SELECT count(*) FROM pi1 INDEXED BY pi1_registersegment WHERE cashregisterid >= -1;

-- stats: entries of pdc
SELECT count(*) FROM pi1 INDEXED BY pi1_pdc WHERE price >= -1;

