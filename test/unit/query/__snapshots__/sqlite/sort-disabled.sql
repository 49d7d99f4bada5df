select "t1"."id" as "c0"
from "articles" as "t1"
limit ?
-- values: [100]
