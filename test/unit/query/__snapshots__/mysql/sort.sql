select `t1`.`id` as `c0`
from `articles` as `t1`
order by `t1`.`views` is null desc, `t1`.`views` desc, (
  select `t2`.`name`
  from `authors` as `t2`
  where `t2`.`id` = `t1`.`author`) is null, (
  select `t3`.`name`
  from `authors` as `t3`
  where `t3`.`id` = `t1`.`author`), year(`t1`.`published`) is null, year(`t1`.`published`)
limit ?
-- values: [100]
